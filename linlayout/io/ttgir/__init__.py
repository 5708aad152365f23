"""Triton's TTGIR: read encodings, types and modules, print layouts back, lint shared-memory traffic."""
