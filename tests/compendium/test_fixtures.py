"""The committed inputs that stand in for the compendium on the library's side are what it gives today."""

import pandas as pd
import yaml
from repo_paths import COMPAS_VIOLENT, COMPAS_VIOLENT_COLUMNS, CONFIG, RAW

from compendium.data.compas import load_preset


def test_compas_violent_fixture_is_the_propublica_violent_preset_byte_for_byte():
    preset = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["compas"]["presets"]["propublica_violent"]
    frame = load_preset(RAW, preset).frame[COMPAS_VIOLENT_COLUMNS]
    assert len(frame) == 4020  # the filtered people (tests/fixtures/compas-violent.md)
    written = frame.to_csv(index=False, lineterminator="\n").encode()
    assert COMPAS_VIOLENT.read_bytes() == written, "rewrite tests/fixtures/compas-violent.csv (see its .md)"
    back = pd.read_csv(COMPAS_VIOLENT)
    pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_dtype=False)
