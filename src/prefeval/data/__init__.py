"""The data layer: the TREC reader (:mod:`~prefeval.data.trec`), user inputs in every form
(:mod:`~prefeval.data.inputs`), rankings (:mod:`~prefeval.data.ranking`), per-aspect relevance
(:mod:`~prefeval.data.aspects`), named runs, simulated collections and ir_datasets."""
