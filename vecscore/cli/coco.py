"""``vecscore coco``: coco-caption's evaluation (pycocoevalcap 1.2's ``COCOEvalCap``: Bleu_1..4, METEOR, ROUGE_L,
CIDEr) from text files or from coco's JSON files, with bootstrap intervals on request.

Inputs:

* ``--hyps H.txt -r R1.txt [R2.txt ...]``: line ``i`` of ``H.txt`` is item ``i``'s caption and line ``i`` of each
  reference file one of its references; an empty reference line means "no reference from this file for this
  item" (every item needs one).  Lines are stripped of surrounding whitespace, as nlg-eval's file mode reads them.
* ``--annotations captions_val.json --results results.json``: coco's files; the images scored are exactly those
  of the results (``cocoRes.getImgIds()``), in the order of the annotation file's ``images`` (when it has
  them; else of the results), each with all its annotations' captions as references.

Every caption is PTB-tokenized as coco-caption does unless ``--no-tokenize``.  Output: coco's metric dictionary
(a text table, or ``--format json``), or one row per item (``--per-item``: JSON Lines, CSV, TSV, Parquet).

METEOR (meteor-1.5.jar's, ``-l en -norm``, computed without Java) needs the jar's data from an installed
pycocoevalcap: without ``--metrics`` it is scored when that data is found and left out (with a note on stderr)
otherwise; ``--metrics METEOR`` without the data is an error naming the fix.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.io.read import open_input, read_lines
from vecscore.io.write import atomic_output, make_writer, output_format, write_json, write_text

__all__ = ["run_coco", "CocoInput", "read_text_input", "read_json_input", "require_meteor_data", "ROW_FORMATS"]

ROW_FORMATS = ("jsonl", "csv", "tsv", "parquet")


@dataclass
class CocoInput:
    """The items to score: captions, per-item reference lists and, from coco's JSON, the image ids."""

    hyps: list
    refs: list
    image_ids: list | None
    source: str  # for messages: the hypothesis file or the results file


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else str(path)


def read_text_input(hyp_path: str, ref_paths: list[str], *, strip: bool = True, command: str = "vecscore coco",
                    item: str = "caption") -> CocoInput:
    """``--hyps``/``-r``: aligned lines; a reference line that is empty (or only whitespace) is no reference; every
    item needs one.  ``strip``: surrounding whitespace removed from every line (nlg-eval's reading), else the
    lines are kept as they are.  ``command`` and ``item`` name the command and its items in messages."""
    if [hyp_path, *ref_paths].count("-") > 1:
        raise VecscoreError("only one of --hyps/-r can be '-' (stdin)")
    if len(set(ref_paths)) != len(ref_paths):
        dup = next(p for p in ref_paths if ref_paths.count(p) > 1)
        raise VecscoreError(f"-r {dup} is given twice; each reference file counts once")
    hyps = [line.strip() if strip else line for line in read_lines(hyp_path)]
    if not hyps:
        raise VecscoreError(f"{_name(hyp_path)} has no lines: {command} needs at least one {item} (one per line)")
    files = []
    for path in ref_paths:
        rows = read_lines(path)
        if len(rows) != len(hyps):
            first = min(len(rows), len(hyps)) + 1
            short = path if len(rows) < len(hyps) else hyp_path
            raise VecscoreError(f"{_name(path)} has {len(rows):,d} lines but {_name(hyp_path)} has {len(hyps):,d} "
                                f"(line {first} is missing from {_name(short)}); every reference file needs one line "
                                f"per {item} (an empty line for no reference)")
        files.append([r.strip() if strip else r for r in rows])
    refs = [[f[i] for f in files if f[i] and not f[i].isspace()] for i in range(len(hyps))]
    missing = next((i for i, r in enumerate(refs) if not r), None)
    if missing is not None:
        names = ", ".join(_name(p) for p in ref_paths)
        raise VecscoreError(f"line {missing + 1}: no reference for this {item} ({_name(hyp_path)}, line "
                            f"{missing + 1}): the line is empty in every reference file ({names}); every item needs "
                            "at least one reference")
    return CocoInput(hyps, refs, None, _name(hyp_path))


def _load_json(path: str, what: str):
    f = sys.stdin.buffer if path == "-" else open_input(path)
    try:
        raw = f.read()
    finally:
        if f is not sys.stdin.buffer:
            f.close()
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise VecscoreError(f"{_name(path)}: not valid UTF-8 ({exc.reason}); {what} must be a UTF-8 JSON "
                            "file") from None
    except json.JSONDecodeError as exc:
        raise VecscoreError(f"{_name(path)}, line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); "
                            f"{what} must be one JSON document") from None


def _caption_of(entry, where: str) -> tuple:
    if not isinstance(entry, dict):
        raise VecscoreError(f"{where} is {type(entry).__name__} {json.dumps(entry)[:60]}; expected an object "
                            "{\"image_id\": ..., \"caption\": \"...\"}")
    for key in ("image_id", "caption"):
        if key not in entry:
            raise VecscoreError(f"{where} has no {key!r}: {json.dumps(entry, ensure_ascii=False)[:80]}")
    image, caption = entry["image_id"], entry["caption"]
    if not isinstance(caption, str):
        raise VecscoreError(f"{where} (image {image!r}): the caption is {type(caption).__name__} "
                            f"{json.dumps(caption)[:40]}, not a string")
    if isinstance(image, (dict, list)):
        raise VecscoreError(f"{where}: image_id must be a number or a string, not {json.dumps(image)[:40]}")
    return image, caption


def read_json_input(annotations: str, results: str) -> CocoInput:
    """coco's annotation file and a results file, checked as ``COCO.loadRes`` and ``COCOEvalCap`` use them."""
    if annotations == "-" and results == "-":
        raise VecscoreError("only one of --annotations/--results can be '-' (stdin)")
    ann = _load_json(annotations, "--annotations")
    a_name, r_name = _name(annotations), _name(results)
    if not isinstance(ann, dict) or not isinstance(ann.get("annotations"), list):
        raise VecscoreError(f"{a_name} is not coco's annotation format: expected an object with an \"annotations\" "
                            "list of {\"image_id\": ..., \"caption\": \"...\"}")
    refs: dict = {}
    for j, entry in enumerate(ann["annotations"]):
        image, caption = _caption_of(entry, f"{a_name}: annotations[{j}]")
        refs.setdefault(image, []).append(caption)
    order = None
    if "images" in ann:
        images = ann["images"]
        if not isinstance(images, list):
            raise VecscoreError(f"{a_name}: \"images\" must be a list of {{\"id\": ...}} objects")
        order = []
        for j, img in enumerate(images):
            if not isinstance(img, dict) or "id" not in img:
                raise VecscoreError(f"{a_name}: images[{j}] has no 'id': {json.dumps(img, ensure_ascii=False)[:60]}")
            order.append(img["id"])
    res = _load_json(results, "--results")
    if not isinstance(res, list):
        raise VecscoreError(f"{r_name} is not a coco results file: expected a JSON list of {{\"image_id\": ..., "
                            "\"caption\": \"...\"}}")
    if not res:
        raise VecscoreError(f"{r_name} has no results: vecscore coco needs at least one caption")
    hyp: dict = {}
    first: dict = {}
    known = None if order is None else set(order)
    for j, entry in enumerate(res):
        image, caption = _caption_of(entry, f"{r_name}: entry {j}")
        if image in hyp:
            raise VecscoreError(f"{r_name}: image {image!r} has two results (entries {first[image]} and {j}); coco's "
                                "evaluation takes exactly one caption per image")
        if image not in refs or (known is not None and image not in known):
            why = "no annotation has this image_id" if image not in refs else "it is not among its \"images\""
            raise VecscoreError(f"{r_name}: entry {j}: image {image!r} is not in {a_name} ({why}); coco's "
                                "evaluation refuses results for images it has no references of")
        hyp[image] = caption
        first[image] = j
    ids = [i for i in dict.fromkeys(order) if i in hyp] if order is not None else list(hyp)
    return CocoInput([hyp[i] for i in ids], [refs[i] for i in ids], ids, r_name)


def _meteor_missing(error: VecscoreError) -> str:
    """Why METEOR cannot be scored, in this command's terms (it has no flag for another copy of the jar)."""
    if isinstance(error, MissingDependencyError):
        return ("its data comes from meteor-1.5.jar, which pycocoevalcap ships, and pycocoevalcap is not installed: "
                "pip install pycocoevalcap")
    return str(error)


def _metrics(names: list[str] | None, quiet: bool = False) -> list[str]:
    """The metrics asked for (coco-caption's spelling, each once), or by default all of them, METEOR only when its
    data is found."""
    from vecscore.coco.evaluate import meteor_data_error
    from vecscore.significance.coco import COCO_METRICS

    if names is None:
        missing = meteor_data_error()
        if missing is None:
            return list(COCO_METRICS)
        if not quiet:
            print(f"vecscore coco: METEOR left out: {_meteor_missing(missing)}", file=sys.stderr)
        return [m for m in COCO_METRICS if m != "METEOR"]
    by_lower = {m.lower(): m for m in COCO_METRICS}  # any case: every name here is coco-caption's
    out = []
    for m in names:
        name = by_lower.get(m.lower())
        if name is None:
            raise VecscoreError(f"--metrics {m}: unknown metric; valid: {' '.join(COCO_METRICS)} (SPICE is not "
                                "computed)")
        out.append(name)
    if "METEOR" in out:
        require_meteor_data()
    return list(dict.fromkeys(out))


def require_meteor_data() -> None:
    """An error naming the fix (``--metrics METEOR: ...``) when coco-caption's METEOR cannot be computed here."""
    from vecscore.coco.evaluate import meteor_data_error

    missing = meteor_data_error()
    if missing is not None:
        raise type(missing)(f"--metrics METEOR: {_meteor_missing(missing)}")


def _read_input(args) -> CocoInput:
    text = args.hyps is not None or args.refs is not None
    structured = args.annotations is not None or args.results is not None
    if text and structured:
        raise VecscoreError("give either --hyps/-r (text files) or --annotations/--results (coco's JSON), not both")
    if text:
        if args.hyps is None or not args.refs:
            raise VecscoreError("text input needs both --hyps FILE and -r REF_FILE [REF_FILE ...]")
        return read_text_input(args.hyps, args.refs)
    if structured:
        if args.annotations is None or args.results is None:
            raise VecscoreError("coco's JSON input needs both --annotations captions.json and --results results.json")
        return read_json_input(args.annotations, args.results)
    raise VecscoreError("no input: give --hyps FILE -r REF_FILE [...] (text) or --annotations FILE --results FILE "
                        "(coco's JSON)")


def _format(args) -> str:
    if args.format is not None:
        fmt = args.format
    elif args.output != "-" and args.output.lower().endswith(".txt"):
        fmt = "text"
    else:
        fmt = output_format(args.output, None, "jsonl" if args.per_item else "text")
    if args.per_item and fmt in ("text", "json"):
        raise VecscoreError(f"--per-item writes one row per item: use --format jsonl, csv, tsv or parquet, not {fmt}")
    return fmt


def signature(n_items: int, tokenize: bool) -> str:
    from vecscore._version import __version__

    return f"coco|items:{n_items}|tok:{'ptb' if tokenize else 'none'}|version:{__version__}"


def _table(scores: dict, intervals: dict, sig: str) -> str:
    width = max(len(m) for m in scores)
    lines = []
    for m, v in scores.items():
        cell = f"{v:.4f}"
        ci = intervals.get(m)
        if ci is not None:
            cell += f" (μ = {ci.mean:.4f} ± {ci.ci:.4f})"
        lines.append(f"{m.ljust(width)}  {cell}")
    return "\n".join(lines + ["", sig]) + "\n"


def _seed(text):
    if text is None:
        return "env"
    if str(text).lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise VecscoreError(f"--seed must be a whole number or 'none', not {text!r}") from None


def run_coco(args) -> int:
    from vecscore.io.read import RowChunk
    from vecscore.io.stream import ScoreChunk
    from vecscore.significance.coco import CocoMetric, coco_adapter, coco_batch, coco_item_stats, per_item_scores

    fmt = _format(args)
    per_item = fmt in ROW_FORMATS
    seed = _seed(args.seed)
    if args.confidence_n is not None and not args.confidence:
        raise VecscoreError("--confidence-n goes with --confidence")
    if args.confidence and per_item and args.summary is None:
        raise VecscoreError("--confidence adds intervals to the metric dictionary, which per-item output does not "
                            "write: add --summary FILE, or drop --per-item")
    tokenize = not args.no_tokenize
    metrics = _metrics(args.metrics, args.quiet)
    data = _read_input(args)
    batch = coco_batch(data.hyps, data.refs, tokenize=tokenize)
    stats = coco_item_stats(batch, metrics, data.image_ids)
    adapters = {m: coco_adapter(CocoMetric(m, tokenize=tokenize)) for m in metrics}
    scores = {m: adapters[m].corpus(stats[m]) for m in metrics}
    sig = signature(batch.n, tokenize)
    intervals = {}
    if args.confidence:
        from vecscore.significance.paired import interval_from_stats

        n = args.confidence_n or 1000
        if n < 2:
            raise VecscoreError("--confidence-n must be at least 2 for an interval")
        for m in metrics:
            s = adapters[m].signature()
            intervals[m] = interval_from_stats(adapters[m], stats[m], n, seed, (s, s))
    summary: dict = dict(scores)
    if intervals:
        first = next(iter(intervals.values()))
        summary["confidence"] = {m: {"mean": float(ci.mean), "ci": float(ci.ci), "low": float(ci.low),
                                     "high": float(ci.high)} for m, ci in intervals.items()}
        summary["confidence_signature"] = f"{sig.rsplit('|', 1)[0]}|bs:{first.n_bootstrap}|seed:{first.seed}|" \
                                          f"{sig.rsplit('|', 1)[1]}"
    if per_item:
        columns = {m: per_item_scores(m, stats[m]) for m in metrics}
        records = None if data.image_ids is None else [{"image_id": i} for i in data.image_ids]
        rows = RowChunk(data.hyps, data.refs, 0, data.source, records=records)
        with atomic_output(args.output) as stream:
            writer = make_writer(fmt, stream)
            try:
                writer.write(rows, ScoreChunk(0, batch.n, columns))
            except BaseException:
                writer.abort()
                raise
            writer.close()
    elif fmt == "text":
        write_text(args.output, _table(scores, intervals, summary.get("confidence_signature", sig)))
    else:
        write_json(args.output, summary)
    if args.summary is not None:
        write_json(args.summary, summary)
    return 0

