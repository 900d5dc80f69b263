"""Loaders and filters for the compendium's raw data (COMPAS, NIJ) and their checksummed downloads."""
