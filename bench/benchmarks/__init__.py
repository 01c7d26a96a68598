"""asv benchmarks for fasttree; see ``bench/asv.conf.json``."""

# Samples per round as asv's (min_repeat, max_repeat, max_time): at least 4,
# so that asv's two rounds give 8 per commit. asv calls a change significant
# by a Mann-Whitney test at p < 0.002, and with 6 samples a side even two
# sets that do not overlap reach only p = 2 / C(12, 6) = 0.0022: a suite of
# 3 a round let `asv continuous` pass a predict made twice as slow.
REPEAT = (4, 10, 60.0)
