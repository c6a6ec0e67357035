"""The score tables of the overview, a category and a benchmark: the grid (:mod:`.grid`), the
breakdown bars (:mod:`.contrib`), the pinned baseline (:mod:`.baseline`), the sidebar and
breadcrumbs (:mod:`.navigation`), the normalisation curve (:mod:`.curve`), the model card
(:mod:`.modelcard`) and model search (:mod:`.modelsearch`), stability intervals and what-if
(:mod:`.sensitivity`)."""
