"""The ir_datasets layer (prefeval.data.datasets, `prefeval datasets seed|info`), offline.

ir_datasets fixes its home directory when it is imported, so everything that touches a dataset runs in a
subprocess whose IR_DATASETS_HOME is a fresh temporary directory and whose network is cut off (the socket
name resolution raises). The subprocess seeds the home with the `prefeval datasets seed` command from
../shared/data, loads the datasets, evaluates, and hands its results back in a pickle.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import pickle
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from prefeval.data.trec import read_qrels

WORKER = textwrap.dedent(r'''
    import contextlib, gzip, io, os, pickle, shutil, socket, sys, time
    from pathlib import Path

    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    home = Path(os.environ["IR_DATASETS_HOME"])
    lookups = []

    def no_network(host, *args, **kwargs):
        lookups.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (network cut off by the test)")

    socket.getaddrinfo = no_network

    import ir_measures
    from ir_measures import Qrel
    import prefeval
    from prefeval.data import datasets
    from prefeval.commands.cli import main
    from prefeval.errors import DatasetUnavailable, PrefevalError

    res = {}

    def cli(*args):
        buf, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            code = main(list(args))
        return code, buf.getvalue() + err.getvalue()

    def error_of(fn):
        try:
            fn()
        except PrefevalError as exc:
            return type(exc).__name__, str(exc)
        return None

    # -- the DL-Hard trap: a qrels file placed by hand without its version marker -------------------------
    doc = "msmarco-document/trec-dl-hard"
    target = home / "msmarco-document" / "trec-dl-hard" / "qrels"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data / "dl-hard" / "dl_hard-doc.qrels", target)
    res["unmarked"] = error_of(lambda: datasets.load(doc).qrels)
    res["unmarked_file_kept"] = target.exists()
    res["seed_doc"] = cli("datasets", "seed", doc, str(data / "dl-hard" / "dl_hard-doc.qrels"))
    res["doc_qrels"] = len(datasets.load(doc).qrels)

    # -- seeding with the command -----------------------------------------------------------------------
    res["seed_mismatch"] = cli("datasets", "seed", "clueweb09/catb/trec-web-2012/diversity",
                               str(data / "trec-web-2012" / "qrels-for-ndeval.txt"))
    res["seed_mismatch_written"] = (home / "clueweb09" / "trec-web-2012" / "qrels.all").exists()
    res["seed_mismatch_forced"] = cli("datasets", "seed", "clueweb09/catb/trec-web-2012/diversity",
                                      str(data / "trec-web-2012" / "qrels-for-ndeval.txt"), "--force")
    gz = out.parent / "qrels.dl19-passage.txt.gz"
    gz.write_bytes(gzip.compress((data / "trec-dl" / "qrels.dl19-passage.txt").read_bytes()))
    res["seeds"] = [
        cli("datasets", "seed", "msmarco-passage/trec-dl-hard", str(data / "dl-hard" / "dl_hard-passage.qrels")),
        cli("datasets", "seed", "irds:msmarco-passage/trec-dl-2019/judged", str(gz)),
        cli("datasets", "seed", "clueweb09/catb/trec-web-2012/diversity", str(data / "trec-web-2012" / "qrels.diversity.txt")),
        cli("datasets", "seed", "clueweb09/catb/trec-web-2012/diversity", str(data / "trec-web-2012" / "full-topics.xml")),
    ]
    res["seed_missing_file"] = cli("datasets", "seed", "msmarco-passage/trec-dl-hard", str(data / "no-such-file"))
    res["info"] = cli("datasets", "info", "clueweb09/catb/trec-web-2012/diversity")
    res["info_unknown"] = cli("datasets", "info", "msmarco-pasage/trec-dl-hard")

    # -- loading ------------------------------------------------------------------------------------------
    for name in ("msmarco-passage/trec-dl-hard", "msmarco-passage/trec-dl-2019/judged",
                 "clueweb09/catb/trec-web-2012/diversity"):
        ds = datasets.load(name)
        res[name] = {"qrels": ds.qrels, "facts": ds.facts, "raw": list(ds.irds.qrels_iter())}
    res["same_object"] = datasets.load("irds:msmarco-passage/trec-dl-hard") is datasets.load("msmarco-passage/trec-dl-hard")
    res["web_topics"] = datasets.load("clueweb09/catb/trec-web-2012/diversity").topics
    res["unknown"] = error_of(lambda: datasets.load("msmarco-pasage/trec-dl-hard"))

    # -- evaluation through dataset ids ---------------------------------------------------------------------
    passage = sorted(str(p) for p in (data / "dl-hard" / "runs" / "passage").glob("*.run.gz"))
    res["dlhard_eval"] = prefeval.evaluate("msmarco-passage/trec-dl-hard", passage, ["nDCG@10", "AP", "RR"],
                                           per_query=True, rel=2)
    web = {n: prefeval.read_run(data / "trec-web-2012" / "runs" / f"{n}.run.gz") for n in ("ql-catb", "rm-catb-filtered")}
    web_id = "clueweb09/catb/trec-web-2012/diversity"
    res["web_eval"] = prefeval.evaluate(web_id, web, ["ERR_IA@20", "alpha_nDCG@20"])
    raw = list(datasets.load(web_id).irds.qrels_iter())
    mapped = [Qrel(q.query_id, q.doc_id, q.relevance, q.subtopic_id) for q in raw]
    measures = [ir_measures.ERR_IA @ 20, ir_measures.alpha_nDCG @ 20]
    # pyndeval on the runs as prefeval ranks them (ties by doc id descending; pyndeval keeps the input order)
    from prefeval.data.ranking import canonical_run
    ranked = {n: canonical_run(r, n) for n, r in web.items()}
    res["web_pyndeval"] = {n: {str(m): v for m, v in ir_measures.calc_aggregate(measures, mapped, r).items()}
                           for n, r in ranked.items()}
    res["web_unmapped"] = {n: {str(m): v for m, v in ir_measures.calc_aggregate(measures, raw, r).items()}
                           for n, r in web.items()}

    # -- offline, not seeded: fail fast ---------------------------------------------------------------------
    before = len(lookups)
    res["dl20"] = error_of(lambda: prefeval.evaluate("msmarco-passage/trec-dl-2020/judged",
                                                     {"bm25": passage[0]}, ["nDCG@10"]))
    res["dl20_again"] = error_of(lambda: datasets.load("msmarco-passage/trec-dl-2020/judged").qrels)
    res["dl20_lookups"] = lookups[before:]
    os.environ["PREFEVAL_OFFLINE"] = "1"
    res["dl20_forced"] = error_of(lambda: datasets.load("msmarco-passage/trec-dl-2020").qrels)
    res["home"] = str(home)
    out.write_bytes(pickle.dumps(res))
''')


@pytest.fixture(scope="module")
def offline(shared_data, tmp_path_factory):
    """Results of the worker: a fresh IR_DATASETS_HOME, no network, seeded with `prefeval datasets seed`."""
    tmp = tmp_path_factory.mktemp("irds")
    home = tmp / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IR_DATASETS", "PREFEVAL_OFFLINE"))}
    env.update(IR_DATASETS_HOME=str(home), IR_DATASETS_DL_DISABLE_PBAR="true")
    out = tmp / "result.pickle"
    proc = subprocess.run([sys.executable, "-c", WORKER, str(shared_data), str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return pickle.loads(out.read_bytes())


def md5(path) -> str:
    return hashlib.md5(open(path, "rb").read()).hexdigest()


# ----------------------------------------------------------------------------------------------
# seeding


def test_seed_places_files_and_markers(offline, shared_data):
    home = offline["home"]
    for code, text in offline["seeds"]:
        assert code == 0 and "seeded" in text and "warning" not in text, text
    assert md5(f"{home}/msmarco-passage/trec-dl-hard/qrels") == md5(shared_data / "dl-hard" / "dl_hard-passage.qrels")
    # exactly "v3", no newline: anything else makes ir_datasets delete the seeded file
    assert open(f"{home}/msmarco-passage/trec-dl-hard/irds_version.txt", "rb").read() == b"v3"
    assert open(f"{home}/msmarco-document/trec-dl-hard/irds_version.txt", "rb").read() == b"v2"
    # a gzip copy whose content has the recorded md5 is stored unpacked
    assert md5(f"{home}/msmarco-passage/trec-dl-2019/qrels") == "2f4be390198da108f6845c822e5ada14"
    assert md5(f"{home}/clueweb09/trec-web-2012/qrels.all") == "bbfde42fc4bc502b19aec5dcc6922faa"
    assert md5(f"{home}/clueweb09/trec-web-2012/queries.xml") == "a0b8ee33da312a284fda379582b0bc2a"


def test_seed_refuses_an_md5_mismatch_unless_forced(offline):
    code, text = offline["seed_mismatch"]
    assert code == 1 and "error:" in text and "not seeded" in text and "--force" in text
    assert "789bbf80f6be03dfd4b861381f9faa3f differs from bbfde42fc4bc502b19aec5dcc6922faa" in text
    assert "$IR_DATASETS_HOME/clueweb09/trec-web-2012/qrels.all" in text
    assert offline["seed_mismatch_written"] is False
    code, text = offline["seed_mismatch_forced"]
    assert code == 0
    assert "warning" in text and "789bbf80f6be03dfd4b861381f9faa3f differs from bbfde42fc4bc502b19aec5dcc6922faa" in text


def test_seed_and_info_errors(offline):
    code, text = offline["seed_missing_file"]
    assert code == 1 and "file to seed not found" in text and "no-such-file" in text
    code, text = offline["info_unknown"]
    assert code == 1 and "did you mean msmarco-passage/trec-dl-hard" in text


def test_info_lists_cached_files(offline):
    code, text = offline["info"]
    assert code == 0
    assert "subtopics yes" in text and "-2: Junk" in text and "4: Nav" in text
    lines = [ln for ln in text.splitlines() if "$IR_DATASETS_HOME/clueweb09/trec-web-2012/" in ln]
    assert any("qrels" in ln and "cached" in ln and "qrels.all" in ln for ln in lines), text
    assert any("queries" in ln and "cached" in ln and "queries.xml" in ln for ln in lines), text
    assert "missing $IR_DATASETS_HOME/clueweb09/corpus" in text


def test_unmarked_file_is_refused_offline_not_deleted(offline):
    kind, message = offline["unmarked"]
    assert kind == "DatasetUnavailable"
    assert "irds_version.txt does not contain exactly 'v2'" in message
    assert "prefeval datasets seed msmarco-document/trec-dl-hard dl_hard-doc.qrels" in message
    assert offline["unmarked_file_kept"]
    assert offline["seed_doc"][0] == 0 and offline["doc_qrels"] == 8544


# ----------------------------------------------------------------------------------------------
# loading


def test_loaded_qrels_match_the_files(offline, shared_data):
    hard = offline["msmarco-passage/trec-dl-hard"]
    expected = read_qrels(shared_data / "dl-hard" / "dl_hard-passage.qrels")
    pd.testing.assert_frame_equal(hard["qrels"].reset_index(drop=True), expected, check_dtype=False)
    dl19 = offline["msmarco-passage/trec-dl-2019/judged"]
    assert len(dl19["qrels"]) == 9260 and dl19["qrels"]["query_id"].nunique() == 43
    facts = hard["facts"]
    assert facts.num_queries == 50 and facts.num_judgments == 4256 and not facts.has_subtopics
    assert sorted(facts.grades) == [0, 1, 2, 3] and facts.grade_counts == {0: 2462, 1: 810, 2: 634, 3: 350}
    assert offline["same_object"]


def test_diversity_qrels_carry_subtopics_in_iteration(offline, shared_data):
    div = offline["clueweb09/catb/trec-web-2012/diversity"]
    qrels = div["qrels"]
    assert len(qrels) == 38992 and qrels["query_id"].nunique() == 50
    raw = div["raw"]
    assert type(raw[0]).__name__ == "TrecSubQrel"
    assert qrels["iteration"].tolist() == [r.subtopic_id for r in raw]
    assert qrels["relevance"].tolist() == [r.relevance for r in raw]
    assert sorted(qrels["iteration"].unique()) == ["1", "2", "3", "4", "5", "6"]
    # Category B filtering keeps a subset of the file's judgments, unchanged
    full = read_qrels(shared_data / "trec-web-2012" / "qrels.diversity.txt")
    keys = set(zip(full["query_id"], full["iteration"], full["doc_id"], full["relevance"]))
    assert set(zip(qrels["query_id"], qrels["iteration"], qrels["doc_id"], qrels["relevance"])) <= keys
    facts = div["facts"]
    assert facts.has_subtopics and -2 in facts.grades and 4 in facts.grades


def test_topics(offline):
    topics = offline["web_topics"]
    assert len(topics) == 50 and topics["query_id"].iloc[0] == "151"
    assert {"query_id", "query", "description"} <= set(topics.columns)
    assert topics["query"].iloc[0] == "403b"


def test_unknown_id_suggests_close_ids(offline):
    kind, message = offline["unknown"]
    assert kind == "PrefevalError"
    assert "neither an existing file nor an ir_datasets id" in message
    assert "did you mean msmarco-passage/trec-dl-hard" in message


# ----------------------------------------------------------------------------------------------
# evaluation through dataset ids


def read_trec_eval(path) -> pd.DataFrame:
    frame = pd.read_csv(path, sep="\t", header=None, names=["measure", "query_id", "value"], dtype=str)
    frame["measure"] = frame["measure"].str.strip()
    return frame


def test_dl_hard_matches_trec_eval(offline, shared_data):
    ours = offline["dlhard_eval"]
    names = {"nDCG@10": "ndcg_cut_10", "AP(rel=2)": "map", "RR(rel=2)": "recip_rank"}
    runs = sorted(ours["run"].unique())
    assert len(runs) == 6
    for run in runs:
        ref = read_trec_eval(shared_data / "dl-hard" / "runs" / "passage" / f"{run}.run.eval.gz")
        for ours_name, trec_name in names.items():
            mine = ours[(ours["run"] == run) & (ours["measure"] == ours_name)].set_index("query_id")["value"]
            theirs = ref[ref["measure"] == trec_name].set_index("query_id")["value"].astype(float)
            assert set(mine.index) == set(theirs.index) - {"all"} and len(mine) == 50
            for qid, value in mine.items():
                assert round(value, 4) == pytest.approx(theirs[qid], abs=1e-9), (run, trec_name, qid)
            assert round(mine.mean(), 4) == pytest.approx(theirs["all"], abs=1e-9), (run, trec_name)


def test_diversity_measures_equal_pyndeval_with_subtopics(offline):
    ours = offline["web_eval"]
    for run, values in offline["web_pyndeval"].items():
        for measure, value in values.items():
            mine = ours[(ours["run"] == run) & (ours["measure"] == measure)]["value"].item()
            assert mine == pytest.approx(value, abs=1e-12)
            # what one gets when the ir_datasets records go to ir-measures unmapped (all subtopics "0")
            assert abs(offline["web_unmapped"][run][measure] - value) > 0.05


def test_offline_unseeded_dataset_fails_fast_with_instructions(offline):
    kind, message = offline["dl20"]
    assert kind == "DatasetUnavailable"
    for part in ("msmarco-passage/trec-dl-2020/judged", "2020qrels-pass.txt",
                 "$IR_DATASETS_HOME/msmarco-passage/trec-dl-2020/qrels",
                 f"{offline['home']}/msmarco-passage/trec-dl-2020/qrels",
                 "prefeval datasets seed msmarco-passage/trec-dl-2020/judged 2020qrels-pass.txt",
                 "no download host is reachable"):
        assert part in message, part
    assert offline["dl20_again"] == offline["dl20"]
    # one look-up per host (the primary server and ir_datasets' mirror), then no retries at all
    lookups = offline["dl20_lookups"]
    assert sorted(set(lookups)) == ["mirror.ir-datasets.com", "trec.nist.gov"] and len(lookups) == 2
    kind, message = offline["dl20_forced"]
    assert kind == "DatasetUnavailable" and "PREFEVAL_OFFLINE is set" in message


# ----------------------------------------------------------------------------------------------
# in-process helpers that do not touch ir_datasets' home


def test_normalise_id():
    from prefeval.data.datasets import normalise_id

    assert normalise_id(" irds:msmarco-passage/trec-dl-hard ") == "msmarco-passage/trec-dl-hard"
    assert normalise_id("msmarco-passage/trec-dl-hard") == "msmarco-passage/trec-dl-hard"


def test_unavailable_message_without_cache_path(tmp_path):
    from prefeval.data.datasets import NeededFile, unavailable_message

    needed = NeededFile(entity="docs", path=None, md5="abc", urls=["https://example.org/x/corpus.tar.gz"],
                        local_mirrors=[tmp_path / "downloads" / "abc"])
    text = unavailable_message("some/dataset", needed, "PREFEVAL_OFFLINE is set")
    assert "corpus.tar.gz" in text and "md5 abc" in text and str(tmp_path / "downloads" / "abc") in text
    assert not needed.cached()
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "abc").write_bytes(gzip.compress(b"x"))
    assert needed.cached()
