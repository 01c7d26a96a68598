"""asv benchmarks for fasttree; see ``bench/asv.conf.json``."""
