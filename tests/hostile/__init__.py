"""Hostile input through the real command line: built at test time, run with a timeout."""
