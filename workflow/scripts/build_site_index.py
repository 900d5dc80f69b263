"""Write the site's index and pages (compendium.publish.site.build_site) from the experiment's results."""

import logging

from compendium.publish.site import build_site

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)  # noqa: F821
site = build_site(
    snakemake.params.results_dir,  # noqa: F821
    snakemake.params.site_dir,  # noqa: F821
    experiment=snakemake.params.experiment,  # noqa: F821
    published_vs_reproduced=snakemake.input.pvr[0] if snakemake.input.pvr else None,  # noqa: F821
)
logging.info(
    "%d pages, %d stages, %d tables, %d figures, %d notebooks, %d course labs; published vs reproduced %d/%d "
    "matching",
    len(site.pages) + 1, len(site.stages), site.n_tables, site.n_figures, site.n_notebooks, site.n_labs,
    site.n_matching,
    site.n_published,
)
