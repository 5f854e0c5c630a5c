"""Files and tables: ``read`` (text, JSONL, CSV, Parquet inputs), ``write`` (outputs, written
atomically), ``stream`` (scoring in chunks, corpus accumulators) and ``arrow`` (Arrow tables)."""
