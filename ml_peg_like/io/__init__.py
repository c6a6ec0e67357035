"""Readers and writers: exports of score tables and converters from other benchmarks' formats."""
