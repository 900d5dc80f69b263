"""fairstats."""
