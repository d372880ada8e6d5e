"""Hostile input: each case built at test time and run through the real command line."""
