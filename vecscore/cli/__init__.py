"""The ``vecscore`` command: ``main`` (subcommands, options, exit codes) and ``filter`` (``--where``)."""
