"""Per-member latency as a distribution: bpftrace's log2 histograms, and percentiles from them.

:mod:`.histogram` parses ``bpftrace -f json`` histogram messages and answers
percentiles honestly (the bucket the percentile lies in, and an estimate inside
it); :mod:`.program` is the bpftrace program raidtop would load, with the
sentence that says what it loads and why. No Textual, no rich.
"""
