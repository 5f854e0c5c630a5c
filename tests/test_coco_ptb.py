"""vecscore.coco.ptb against pycocoevalcap's PTBTokenizer, i.e. the Stanford CoreNLP 3.4.1 jar run through Java.

Every expected value comes from the jar: each test batches its strings into ONE ``PTBTokenizer().tokenize`` call
(one JVM start).  The tests that need the jar skip when ``java`` or ``pycocoevalcap`` is missing (CI has both).
"""
from __future__ import annotations

import glob
import json
import random
import shutil

import pytest

from tests.conftest import data_file
from vecscore.coco.ptb import PTBTokenizer, ptb_tokenize


def _jar_tokenizer():
    if shutil.which("java") is None:
        pytest.skip("java is not installed: pycocoevalcap's PTBTokenizer runs the CoreNLP jar through it")
    module = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer",
                                 reason="pycocoevalcap is not installed (it holds the CoreNLP 3.4.1 jar)")
    return module.PTBTokenizer()


def _jar(texts: list[str]) -> list[str | None]:
    """The jar's line for each text, all texts in one call (None where pycocoevalcap gives none)."""
    result = _jar_tokenizer().tokenize({i: [{"caption": t}] for i, t in enumerate(texts)})
    return [result[i][0] if i in result else None for i in range(len(texts))]


def _mismatches(texts, expected, got):
    return [(t, e, g) for t, e, g in zip(texts, expected, got) if e != g]


def _real_sets(root) -> dict[str, list[str]]:
    e2e = data_file(root, "e2e-nlg-challenge")
    sets = {"e2e references": [line for line in data_file(e2e, "test_references_multi.txt")
                               .read_text(encoding="utf-8").splitlines() if line.strip()]}
    systems = sorted(glob.glob(str(e2e / "systems" / "*.txt")))
    assert len(systems) == 21
    sets["e2e outputs"] = [line for path in systems for line in open(path, encoding="utf-8").read().splitlines()]
    nlg = data_file(root, "nlg-eval-examples")
    sets["nlg-eval"] = [line for name in ("hyp.txt", "ref1.txt", "ref2.txt")
                        for line in data_file(nlg, name).read_text(encoding="utf-8").splitlines()]
    aic = data_file(root, "aichallenger2017-caption-zh")
    tests = json.loads(data_file(aic, "id_to_test_caption.json").read_text(encoding="utf-8"))
    refs = json.loads(data_file(aic, "id_to_words.json").read_text(encoding="utf-8"))
    sets["aichallenger"] = [c["caption"] for c in tests] + [c["caption"] for c in refs["annotations"]]
    return sets


def test_real_sets_agree_with_the_jar(shared_data):
    sets = _real_sets(shared_data)
    assert [len(v) for v in sets.values()] == [4693, 21 * 630, 6, 18]
    texts = [t for v in sets.values() for t in v]
    expected = _jar(texts)
    got = ptb_tokenize(texts)
    report = []
    start = 0
    for name, values in sets.items():
        bad = _mismatches(texts[start:start + len(values)], expected[start:start + len(values)],
                          got[start:start + len(values)])
        if bad:
            report.append(f"{name}: {len(values) - len(bad)}/{len(values)} agree, e.g. {bad[:3]}")
        start += len(values)
    assert not report, report


ADVERSARIAL = [
    '', ' ', '   ', '\t', '.', '...', '!?', '?!', ',;:', '-- - ---', "''", "'", '"', '`', '``', '\'"`', '()',
    '[]{}<>', "don't", "Don't", "DON'T", "can't", "won't", "I'm", "I'M", "y'all", "Y'all", "you're", "we've",
    "he'd", "she'll", "isn't", "aren't", "shouldn't've", "ma'am", "o'clock", "rock 'n' roll", "'em", "'cause",
    "'till", "'90s", "'99", "the '60s were", "d'oeuvre", "O'Neil", "L'Oreal", "nor'easter", "c'mon", "cont'd.",
    "li'l", "ev'ry", "John's dog", "the dogs' bones", "James' car", "it's.", "its'", "Chris's", "the boys's",
    'it’s', 'don’t', '‘quoted’ “double”', '"quoted" word', "'single' word", "`tick' word", 'he said "hi".', '"',
    '""', 'a "b" c', "'a' 'b'", "x'y", "'twas the night", "'Tis true", "'tis", "rock'n'roll", '(parens)',
    '[brackets]', '{braces}', '<angle>', 'a (b) c', '((nested))', ')(', 'f(x)=y', ':)', ':-)', ';)', ':(', ':D',
    ':P', '<3', '^_^', 'o_O', '(^_^)', '=)', ':-( sad', '1,000.50', '3.5', '1/2', '10:30', '5%', '$5', '$5.00',
    'US$5', '£20', '€30', '¥100', '¢50', '20-25', '£20-25.', '2 1/2 cups', '½ cup', '1-1/2', '3/4/2015',
    '12-25-2015', '+1', '-5', '1.2.3', '1,2', '10,000,000', '0.5%', '555-1234', '(555) 555-1234', '555 555 5555',
    '+1 555 555 5555', '1.800.555.1234', '#1', '#hashtag', '@user', 'http://example.com/path?q=1.',
    'https://www.google.com', 'www.example.org.', 'example.com', 'foo.bar.edu,', 'user@example.com',
    '<user@example.com>', 'a.b@c.d.', 'file.txt', 'image.jpg.', '3d.gif', 'index.html,', 'Mr. Smith', 'Mrs. Smith',
    'Dr. Who', 'U.S. Army', 'the U.S.', 'in the U.S. The end', 'U.S.A.', 'e.g. this', 'i.e. that', 'etc.',
    'etc. and', 'etc. The', 'apples, pears, etc.', 'Inc.', 'Corp. said', 'Jan. 5', 'No. 5', 'no. 5', 'fig. 3',
    'Pty. Ltd.', 'Co. Ltd', 'St. Louis', 'Mt. Everest', 'vs. them', 'a.m.', 'p.m. The', 'A. B. C.', 'I. M. Pei',
    'Calif. is', 'Ph.D.', 'Ph.D. student', 'Jr.', 'Sen. Smith', 'Ala. The', 'Wash.', 'Mass.', 'Miss. river',
    'miss.', 'al.', 'et al.', 'etc.,', 'Ltd.;', 'Prof.', 'Gen. Motors', 'x.', 'X. The', 'ca. 1900', 'Hello...',
    'wait . . . what', 'a…b', 'end..', 'end....', 'dashes -- and — and – here', 'a—b', 'a--b', 'a---b',
    'well-known', 'state-of-the-art', 'e-mail', 'non-U.S.', 'pro-choice', 'anti-war', 'x-ray.', 'T-shirt', '-ish',
    'and/or', 'a/b/c', '1/2/3', '*', '**bold**', 'a*b', '\\*', '@@', '__init__', '##', 'a=b', 'a+b', 'A&B', 'AT&T',
    'S&P 500', 'S&P-500', 'Q&A', 'a & b', '&amp;', '&lt;b&gt;', '&quot;hi&quot;', '&apos;s', '&nbsp;', '&eacute;',
    'caf&eacute;', '&mdash;', '&#123;', 'emoji 😀 here', '😀', '👍🏽 ok', 'café', 'Café.', 'naïve résumé', 'Ærøskøbing',
    'İstanbul', 'ΣΊΣΥΦΟΣ', 'Straße', '中文字符', '一个 男人 在 骑马', '，。！',
    '日本語のテキスト', '한국어', 'مرحبا', 'עברית', 'हिन्दी',
    'tab\tseparated', 'multiple   spaces', '  leading', 'trailing  ', 'non\xa0breaking', 'zero\u200bwidth',
    'soft\xadhyphen', '\xad', 'gonna go', 'gotta', 'wanna', 'lemme see', 'gimme', 'cannot', 'Cannot', 'CANNOT',
    'cannots', 'gonnas', 'I cannot.', 'c++', 'C#', 'f#', 'A+', 'ABC+DEF', '<b>bold</b>', '<a href="x">link</a>',
    '<!-- comment -->', '<br/>', 'a < b > c', '<<quote>>', '«guillemets»', '„low“', '‹single›', 'the end.',
    'THE END.', 'a man riding a horse .', 'A Man Riding A Horse', 'ok?', 'ok!', 'ok?!', 'wait!!!', '¿qué?',
    '¡hola!', '50 % off', '§ 5', '© 2015', 'x²', 'H₂O', '°C', '±5', '→', '∀x', '™', '\x7f', '\x00', '\x1c',
    '\u3000', 'full\u3000width', 'Ａ Ｂ Ｃ', '１２３', "She said: 'yes'.", 'e.g., this', 'i.e., that',
    'U.S.-U.K. relations', 'Sino-U.S. talks', 'Ed.D', '5-star', '4-5', '20£-25', 'E20-E25.', 'of£20-£30', '-£25.',
    '£20ly', 'child-friendly.', 'kids-Friendly.', "It's near Café Rouge.",
    'The Eagle is a 3 star, family friendly coffee shop.',
]


def test_adversarial_strings_agree_with_the_jar():
    expected = _jar(ADVERSARIAL)
    got = ptb_tokenize(ADVERSARIAL)
    assert _mismatches(ADVERSARIAL, expected, got) == []


def test_drop_in_tokenize_agrees_with_the_jar():
    """Same dict (keys in order, list lengths) as pycocoevalcap, several captions per image, and a caption's
    final abbreviation depending on the next caption (``etc.`` before "The" or "the", or at the very end)."""
    captions = {
        "img1": [{"caption": "A man rides a horse etc.", "id": 1}, {"caption": "The end etc."}],
        7: [{"caption": "the U.S."}, {"caption": "In the U.S. The"}, {"caption": ""}],
        "img3": [{"caption": "  \"Quoted\" (text) -- and more...  "}, {"caption": "two\nlines, Mr."}],
        "img4": [{"caption": "Dr."}, {"caption": "it's 5 p.m."}, {"caption": "Inc."}],
        "img5": [{"caption": "etc."}],
    }
    expected = _jar_tokenizer().tokenize(captions)
    got = PTBTokenizer().tokenize(captions)
    assert list(got) == list(expected)
    assert got == expected


def test_line_breaks_inside_captions_shift_like_the_jar():
    """"\\r", "\\u2028", "\\x85", ... end a line for the jar, so pycocoevalcap pairs later captions with the wrong
    lines; "\\r" just before the caption separator merges with it."""
    captions = {i: [{"caption": t}] for i, t in enumerate(
        ["first\r", "second", "a\rb", "third", "line\u2028sep", "fourth \x85 x", "fifth", "sixth", "seventh"])}
    assert PTBTokenizer().tokenize(captions) == _jar_tokenizer().tokenize(captions)


def test_random_mixtures_agree_with_the_jar():
    rng = random.Random(20260528)
    pool = [w for s in ADVERSARIAL for w in s.split(" ") if w] + list(".,;:'\"`-()[]{}<>$#@&*/\\!?")
    pool += ["a", "The", "U.S.", "etc.", "5", "1/2", "it", "'s", "n't", "Mr.", "x", "\u00a0", "\t"]
    seps = [" ", " ", " ", "", "  ", "\t", "\u00a0"]
    texts = ["".join(rng.choice(pool) + rng.choice(seps) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    expected = _jar(texts)
    got = ptb_tokenize(texts)
    # Greek capital sigma before a hyphen: Java's final-sigma rule differs from Python's str.lower (documented)
    bad = [m for m in _mismatches(texts, expected, got) if "\u03a3" not in m[0]]
    assert bad == []


def test_shapes_without_java():
    assert ptb_tokenize([]) == []
    assert PTBTokenizer().tokenize({}) == {}
    out = PTBTokenizer().tokenize({"b": [{"caption": "x"}, {"caption": ""}], "a": [{"caption": "y."}]})
    assert list(out) == ["b", "a"] and [len(v) for v in out.values()] == [2, 1]


# The bulk route (distinct captions cut at spaces, each distinct piece looked up once, a caption's line cached
# for later calls), the Latin-1 rule set and the abbreviation rules compiled on demand: captions at their edges,
# each repeated before different next captions (the line of a caption ending with an abbreviation depends on it).
FAST_PATH_EDGES = [
    "a man riding a horse.", "A Man, Riding; A Horse: ok? ok! end.", "  two  spaces  ", "tab\there", "5 5",
    "5) 5", "(5) 555 1234", "2 1/2 cups", ". . .", "wait . . . what", "x. . y", "\u0663 \u0664", "\u0663",
    "\u0662 \u0661/\u0662 cups", "2\xa01/2 cup", "555\xa01234", "a <b> c",
    "cannot.", "Gonna, go", "wanna", "pub.", "Pub.", "no.", "No. 5", "the no.", "art.", "Az.", "az.", "co.", "Co. Ltd",
    "pty. ltd", "x.", "I.", "a.", "etc.", "(etc.", "x(etc.", "e.g.", "U.S.", "non-U.S.", "Canada-U.S. talks",
    "U.S.-U.K. talks", "Ph.D.", "Ed.D. The", "a.k.a. John", "Mr Smith", "Mr. Smith", "mr smith", "a b c", "St Louis",
    "kid-friendly.", "x-ray.", "family-friendly, cheap", "Café.", "Café Rouge", "café", "£20-25.", "£20-£25,",
    "20£-25", "It's", "isn't.", "'The Eagle'", "Mill'.", "naïve résumé", "Café Σ", "Σοφία ΣΟΣ", "Straße.", "£20 €30",
    "ÀÉÎ. The", "3.", "3.5.", "1,000.", "20-25.", "5-star.", "", " ", ".", ",", "-", "--", "?!", "The", "the",
    "5 stars", "<b>", "Inc.", "Calif.", "Wash.", "Miss.", "miss.", "al.", "fig.", "figs. 2",
]
NEXT = ["The end", "the end", "5 stars", "", "<b>x</b>", "Inc."]


def test_fast_paths_agree_with_the_jar_in_every_context():
    from vecscore.coco.ptb import clear_cache

    rng = random.Random(7)
    batch = []
    for text in FAST_PATH_EDGES:
        for nxt in NEXT:
            batch += [text, nxt]
    batch += rng.sample(FAST_PATH_EDGES, len(FAST_PATH_EDGES)) + [FAST_PATH_EDGES[-1]]
    expected = _jar(batch)
    clear_cache()
    first = ptb_tokenize(batch)
    again = ptb_tokenize(batch)  # lines and pieces from the caches
    shuffled = batch[1:] + batch[:1]  # cached lines in other contexts
    assert _mismatches(batch, expected, first) == []
    assert _mismatches(batch, expected, again) == []
    assert _mismatches(shuffled, _jar(shuffled), ptb_tokenize(shuffled)) == []


def test_abbreviation_shortcuts_cover_the_lexer_rules():
    """The plain route's word list and the risky-tail test are supersets of the lexer's abbreviation rules (they
    only send more pieces to the lexer)."""
    import itertools

    import regex

    from vecscore.coco import ptb
    from vecscore.coco import ptb_lexer as rules

    exact_dot = regex.compile(rf"(?:{rules._ABBREV1}|{rules._ABBREV2}|{rules._ABBREV3}|{rules._PTE_CO})")
    exact_tail = regex.compile(rf"(?:^|(?<=[^\w.&;'`\u2019\u0092\u00ad\-]))"
                               rf"(?:{rules._ABBREV1}|{rules._ACRONYM}|{rules._ABBREV3}|{rules._PTE_CO})$")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = ["".join(w) for n in (1, 2) for w in itertools.product(letters, repeat=n)]
    words += [v for s in rules.ABBREV_STEMS for v in (s, s.upper(), s.title(), s[:-1], s + "x")]
    for word in words:
        if exact_dot.fullmatch(word + "."):
            assert ptb._abbreviation(word), word
    tails = [p + w + "." for w in words + ["U.S", "a.k.a", "Ph.D", "non-U.S", "Canada-U.S", "U.S.-U.K", "U.S.-U.S.S.R",
                                            "e.g", "A.B.C"] for p in ("", "(", "-", "x", "'", "5", "é")]
    for piece in tails:
        if exact_tail.search(piece):
            assert ptb._RISKY_TAIL.search(piece), piece


# The bulk route (vecscore/coco/ptb_fast.py): captions from its character class and the edges of its rules, random
# mixtures of the pieces below glued with or without spaces, checked against the full lexer (itself checked against
# the jar above) wherever the route takes them, and against the jar in one call.
_WORDS = ["a", "A", "I", "x", "é", "É", "the", "The", "THE", "shop", "Café", "CAFÉ", "café", "Straße", "µg", "ªb",
          "Emma", "emu", "Till", "tilde", "Tisane", "twasx", "causes", "Cause", "ol", "OL", "Dunkin", "somethin",
          "ab", "Re", "ree", "ss", "Sss", "Mmm", "ddd", "Nnn", "Éclair", "ÉÉÉ", "cÉÉ", "Ve", "Ll", "Lll",
          "naïve", "Ærø", "L30", "b2b", "20s", "5star", "etc", "Etc", "ETC", "Mr", "mr", "Mrs", "Dr", "St", "no", "No",
          "co", "Co", "inc", "Inc", "pty", "ltd", "Ltd", "fig", "Calif", "Wash", "miss", "Miss", "al", "vs", "U", "S",
          "e", "g", "ed", "Ed", "ph", "Ph", "d", "cannot", "Cannot", "CANNOT", "cannots", "gonna", "Gonna", "gotta",
          "lemme", "gimme", "wanna", "WANNA", "canNot", "inn", "dinner", "Cotto", "summer", "pro", "anti", "non",
          "C", "c", "f", "y", "Y", "o", "O", "L", "l", "twas", "tis", "em", "cause", "til", "http", "www", "com",
          "org", "html", "jpg", "zz", "ann", "can", "don", "is", "isn", "won", "wo", "ca", "you", "YOU", "we", "they",
          "area", "James", "cont", "nor", "ma", "am", "Inn", "bancorp", "Bancorp", "messrs", "xetc", "etcx"]
_NUMBERS = ["5", "20", "3.5", "1,000", "10:30", "0.5", "1.2.3", "555", "1234", "2015", "25", "½", "1/2", "99"]
_CLITICS = ["'s", "'S", "'re", "'RE", "'ll", "'m", "'M", "'ve", "'d", "'D", "n't", "N'T", "'t", "'", "'em", "'90s",
            "'til", "'cause", "'twas", "'tis", "'n'"]
_PUNCT = [".", ".", ",", ";", ":", "?", "!", "..", "...", "....", "......", ",,", "?!", "!!", "??", ".,", ".;",
          ":.", "?.", "!,", "-", "--", "---", "-----", ".-", "-.", ",-"]
_GLUE = ["-", "-", "", ".", ",", "'", "£", ":", "?", "!", "/", "&", "$", "#", "(", ")", "\"", "`", "’", "–", "@",
         "*", "+", "=", "<", "\u00ad", "\xa0", "\t", "😀", "中"]


def _fast_class_piece(rng: random.Random, odd: float) -> str:
    """A piece; ``odd``: how often it takes the rarer shapes (most of which are outside the class)."""
    roll = rng.random()
    if roll < 0.12:
        return rng.choice(_PUNCT[:7] if rng.random() > odd else _PUNCT)
    if roll < 0.2:
        return rng.choice(["£", "£", "-£", "'"]) + rng.choice(_NUMBERS[:2] + _WORDS[:8] + ["", ""])
    if roll < 0.23:  # clitics as tokens already ("you 're", "do n't")
        return rng.choice(_CLITICS) + rng.choice(["", "", "", "x", "."])
    parts = [rng.choice(_WORDS if rng.random() < 0.75 else _NUMBERS[:12] if rng.random() < odd else _NUMBERS[:2])]
    while rng.random() < 0.3:  # compounds and glued oddities
        parts.append(rng.choice(_GLUE) if rng.random() < odd else "-")
        parts.append(rng.choice(_WORDS + _NUMBERS))
    if rng.random() < 0.15:
        parts.append(rng.choice(_CLITICS if rng.random() < odd else _CLITICS[:11]))
    if rng.random() < 0.1:  # quotes
        parts.append("'")
    if rng.random() < 0.1:
        parts.insert(0, "'")
    if rng.random() < 0.35:
        parts.append(rng.choice(_PUNCT[:12] if rng.random() < odd else _PUNCT[:7]))
    if rng.random() < 0.05:  # "20-£25", " -£25"
        parts.append(rng.choice(["-£", "-£5", "--£5", "-£-", "-£'"]))
    return "".join(parts)


def _fast_class_captions(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    captions = []
    for _ in range(n):
        odd = rng.choice([0.0, 0.02, 0.1, 0.3])
        pieces = [_fast_class_piece(rng, odd) for _ in range(rng.randint(0, 9))]
        seps = [rng.choice([" "] * 12 + ["  ", "   "]) for _ in pieces]
        text = "".join(p + s for p, s in zip(pieces, seps))
        if rng.random() < 0.85:
            text = text.strip(" ")
        if rng.random() < 0.1:
            text = rng.choice([" ", "  ", ". ", "- ", "-- ", "£ "]) + text
        captions.append(text)
    return captions


@pytest.mark.parametrize("seed", range(6))
def test_bulk_route_agrees_with_the_lexer(seed):
    """Every caption the bulk route takes gets the full lexer's line (in its real context: the next caption)."""
    from vecscore.coco import ptb

    captions = _fast_class_captions(seed, 4000)
    captions = list(dict.fromkeys(captions)) + ["end"]  # distinct, as the route gets them; "end" follows the last
    lines, risky = ptb._FAST.lines(captions)
    reference = ptb._document_lines("\n".join(captions))
    assert len(lines) == len(captions) == len(reference)
    skipped = set(risky)
    taken = [i for i in range(len(captions) - 1) if i not in skipped]
    assert len(taken) > 0.2 * len(captions)  # the class is exercised, not just refused
    bad = [(captions[i], reference[i], lines[i]) for i in taken if lines[i] != reference[i]]
    assert bad == []
    # the lines hold at the end of the text too, but for clitics (the last caption of a call takes the route
    # unless it holds an apostrophe)
    ends = [(captions[i], ptb._document_lines(captions[i]), lines[i]) for i in taken if "'" not in captions[i]]
    assert [e for e in ends if e[1] != [e[2]]] == []


def test_bulk_route_agrees_with_the_jar():
    captions = _fast_class_captions(99, 3000)
    assert _mismatches(captions, _jar(captions), ptb_tokenize(captions)) == []


def test_bulk_route_covers_the_real_sets(shared_data):
    """Most captions of the real sets take the bulk route (the figures are in the report of the change)."""
    from vecscore.coco import ptb

    share = {}
    for name, texts in _real_sets(shared_data).items():
        distinct = list(dict.fromkeys(texts))
        share[name] = 1 - len(ptb._FAST.lines(distinct)[1]) / len(distinct)
    assert share["e2e references"] > 0.98 and share["e2e outputs"] > 0.98, share
