"""From user input to integer arrays on the compiled route: ``batch`` (tokens interned to ids),
``pair_rows`` (rows read in place), ``counts`` (sparse n-gram count matrices)."""
