"""benchlib: the parts of scripts/bench.py (`make bench`), one concept per module. docs/reference/plumbing.md "Performance"."""
