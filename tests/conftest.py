"""Test-wide settings: the registered hypothesis profile (deterministic and bounded, issue 29).

``fairstats`` (the default): derandomized (the same examples on every run and machine), no deadline (the
machine is shared), 50 examples unless a test asks for its own number with ``@settings(max_examples=...)``,
no example database written. ``HYPOTHESIS_PROFILE=thorough`` draws 20x as many for a local search.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fairstats",
    derandomize=True,
    deadline=None,
    max_examples=50,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("thorough", parent=settings.get_profile("fairstats"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fairstats"))
