"""The market scanner's pure computations: movers filters, sector and index performance, industry
groups, topic tone, and the synthesis's candidate rules. No I/O: tools pass the data in."""
