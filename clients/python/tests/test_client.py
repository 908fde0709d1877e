"""Driven by clients/python/client_test.go against a real server: the
answers expected are the Go test's hand-written SQL on the same DuckDB file
(OSSIE_EXPECTED)."""

import json
import math
import os
import warnings

import pyarrow as pa
import pytest

from ossie_client import Client, OssieError
from ossie_client.client import TruncatedWarning

URL, TOKEN, MODEL = os.environ["OSSIE_URL"], os.environ["OSSIE_TOKEN"], "corner_store"
with open(os.environ["OSSIE_EXPECTED"]) as f:
    CASES = json.load(f)


def norm(v):
    if isinstance(v, float):
        return round(v, 9)
    if hasattr(v, "isoformat"):
        return v.isoformat()[:10]
    return v


def rows(table):
    return sorted([[norm(v) for v in r.values()] for r in table.to_pylist()], key=repr)


def test_models_and_members():
    c = Client(URL, TOKEN)
    assert MODEL in [m["name"] for m in c.models()]
    assert "revenue" in c.metrics(MODEL) and "visit_to_order_7d" in c.metrics(MODEL)
    assert "orders.channel" in c.dimensions(MODEL)


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_answers_equal_hand_written_sql(case):
    table = Client(URL, TOKEN).query(MODEL, **case["query"])
    want = sorted([[norm(v) for v in r] for r in case["rows"]], key=repr)
    assert rows(table) == want
    df = table.to_pandas()
    assert list(df.columns) == table.column_names and len(df) == len(want)
    assert table.schema.metadata[b"ossie.truncated"] == b"false"


def test_types_follow_datatypes():
    t = Client(URL, TOKEN).query(MODEL, metrics=["revenue"], dimensions=[{"field": "orders.ordered_at", "grain": "month"}])
    assert t.schema.field(0).type == pa.date32()
    assert pa.types.is_floating(t.schema.field(1).type)


def test_problems_carry_the_code():
    with pytest.raises(OssieError) as e:
        Client(URL, TOKEN).query(MODEL, metrics=["revenu"])
    assert e.value.code.startswith("OSS") and e.value.status == 400
    assert any(p.get("path", "").startswith("metrics[0]") for p in e.value.problems), e.value.problems
    with pytest.raises(OssieError) as e:
        Client(URL, "wrong-token-0123456789").models()
    assert e.value.status == 401


def test_truncated_answer_read_from_trailers():
    # A spine of every day since 2000 is larger than the server's first
    # 64 KiB, so the truncation flag comes as an HTTP trailer.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = Client(URL, TOKEN).query(MODEL, metrics=["revenue_running"],
                                     dimensions=[{"field": "orders.ordered_at", "grain": "day"}],
                                     filters=[{"field": "orders.ordered_at", "op": "in_date_range", "values": ["2000-01-01", "2024-03-12"]}])
    assert t.schema.metadata[b"ossie.truncated"] == b"true"
    assert t.num_rows == int(CASES["max_rows"])
    assert any(issubclass(x.category, TruncatedWarning) for x in w)
