"""The version of fairstats, in a module of its own so that any part of the package can import it."""

__version__ = "0.2.0"
