"""The compendium: the two papers rebuilt from their raw data with the fairstats library.

Data loaders and filters (:mod:`compendium.data`), model presets and cross-validation
(:mod:`compendium.models`, :mod:`compendium.crossval`), paper A's tables (:mod:`compendium.paper_a`),
paper B's battery and the authors' procedures (:mod:`compendium.battery`, :mod:`compendium.authors`), the
published-vs-reproduced table (:mod:`compendium.published`) and the HTML site (:mod:`compendium.site`).
It uses fairstats' public API like any user; fairstats never imports it.
"""
