"""The rules of CoreNLP's PTB lexer (the JFlex specification that coco-caption's ``stanford-corenlp-3.4.1.jar``
was built from, with ``-options`` as pycocoevalcap passes them) in Python's ``regex`` syntax, and the lexer that
applies them to one stretch of a document: :func:`lex`.  :mod:`vecscore.coco.ptb` splits captions into the
stretches it lexes and caches them; its docstring says how the two agree with the jar."""
from __future__ import annotations

import regex

__all__ = ["PUNCTUATIONS", "ABBREV_STEMS", "PUNCT", "lex"]

# pycocoevalcap's list; the jar's output is lower-cased, so the bracket tokens of this list never match
PUNCTUATIONS = ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...",
                ";"]
PUNCT = frozenset(PUNCTUATIONS)

_L_TABLE = (
    "41-5a 61-7a aa b5 ba c0-d6 d8-f6 f8-2c1 2c6-2d1 2e0-2e4 2ec 2ee 370-374 376-377 37a-37d 386 388-38a 38c "
    "38e-3a1 3a3-3f5 3f7-481 48a-527 531-556 559 561-587 5d0-5ea 5f0-5f2 620-64a 66e-66f 671-6d3 6d5 6e5-6e6 "
    "6ee-6ef 6fa-6fc 6ff 710 712-72f 74d-7a5 7b1 7ca-7ea 7f4-7f5 7fa 800-815 81a 824 828 840-858 8a0 8a2-8ac "
    "904-939 93d 950 958-961 971-977 979-97f 985-98c 98f-990 993-9a8 9aa-9b0 9b2 9b6-9b9 9bd 9ce 9dc-9dd 9df-9e1 "
    "9f0-9f1 a05-a0a a0f-a10 a13-a28 a2a-a30 a32-a33 a35-a36 a38-a39 a59-a5c a5e a72-a74 a85-a8d a8f-a91 a93-aa8 "
    "aaa-ab0 ab2-ab3 ab5-ab9 abd ad0 ae0-ae1 b05-b0c b0f-b10 b13-b28 b2a-b30 b32-b33 b35-b39 b3d b5c-b5d b5f-b61 "
    "b71 b83 b85-b8a b8e-b90 b92-b95 b99-b9a b9c b9e-b9f ba3-ba4 ba8-baa bae-bb9 bd0 c05-c0c c0e-c10 c12-c28 "
    "c2a-c33 c35-c39 c3d c58-c59 c60-c61 c85-c8c c8e-c90 c92-ca8 caa-cb3 cb5-cb9 cbd cde ce0-ce1 cf1-cf2 d05-d0c "
    "d0e-d10 d12-d3a d3d d4e d60-d61 d7a-d7f d85-d96 d9a-db1 db3-dbb dbd dc0-dc6 e01-e30 e32-e33 e40-e46 e81-e82 "
    "e84 e87-e88 e8a e8d e94-e97 e99-e9f ea1-ea3 ea5 ea7 eaa-eab ead-eb0 eb2-eb3 ebd ec0-ec4 ec6 edc-edf f00 "
    "f40-f47 f49-f6c f88-f8c 1000-102a 103f 1050-1055 105a-105d 1061 1065-1066 106e-1070 1075-1081 108e 10a0-10c5 "
    "10c7 10cd 10d0-10fa 10fc-1248 124a-124d 1250-1256 1258 125a-125d 1260-1288 128a-128d 1290-12b0 12b2-12b5 "
    "12b8-12be 12c0 12c2-12c5 12c8-12d6 12d8-1310 1312-1315 1318-135a 1380-138f 13a0-13f4 1401-166c 166f-167f "
    "1681-169a 16a0-16ea 1700-170c 170e-1711 1720-1731 1740-1751 1760-176c 176e-1770 1780-17b3 17d7 17dc "
    "1820-1877 1880-18a8 18aa 18b0-18f5 1900-191c 1950-196d 1970-1974 1980-19ab 19c1-19c7 1a00-1a16 1a20-1a54 "
    "1aa7 1b05-1b33 1b45-1b4b 1b83-1ba0 1bae-1baf 1bba-1be5 1c00-1c23 1c4d-1c4f 1c5a-1c7d 1ce9-1cec 1cee-1cf1 "
    "1cf5-1cf6 1d00-1dbf 1e00-1f15 1f18-1f1d 1f20-1f45 1f48-1f4d 1f50-1f57 1f59 1f5b 1f5d 1f5f-1f7d 1f80-1fb4 "
    "1fb6-1fbc 1fbe 1fc2-1fc4 1fc6-1fcc 1fd0-1fd3 1fd6-1fdb 1fe0-1fec 1ff2-1ff4 1ff6-1ffc 2071 207f 2090-209c "
    "2102 2107 210a-2113 2115 2119-211d 2124 2126 2128 212a-212d 212f-2139 213c-213f 2145-2149 214e 2183-2184 "
    "2c00-2c2e 2c30-2c5e 2c60-2ce4 2ceb-2cee 2cf2-2cf3 2d00-2d25 2d27 2d2d 2d30-2d67 2d6f 2d80-2d96 2da0-2da6 "
    "2da8-2dae 2db0-2db6 2db8-2dbe 2dc0-2dc6 2dc8-2dce 2dd0-2dd6 2dd8-2dde 2e2f 3005-3006 3031-3035 303b-303c "
    "3041-3096 309d-309f 30a1-30fa 30fc-30ff 3105-312d 3131-318e 31a0-31ba 31f0-31ff 3400-4db5 4e00-9fcc "
    "a000-a48c a4d0-a4fd a500-a60c a610-a61f a62a-a62b a640-a66e a67f-a697 a6a0-a6e5 a717-a71f a722-a788 "
    "a78b-a78e a790-a793 a7a0-a7aa a7f8-a801 a803-a805 a807-a80a a80c-a822 a840-a873 a882-a8b3 a8f2-a8f7 a8fb "
    "a90a-a925 a930-a946 a960-a97c a984-a9b2 a9cf aa00-aa28 aa40-aa42 aa44-aa4b aa60-aa76 aa7a aa80-aaaf aab1 "
    "aab5-aab6 aab9-aabd aac0 aac2 aadb-aadd aae0-aaea aaf2-aaf4 ab01-ab06 ab09-ab0e ab11-ab16 ab20-ab26 "
    "ab28-ab2e abc0-abe2 ac00-d7a3 d7b0-d7c6 d7cb-d7fb f900-fa6d fa70-fad9 fb00-fb06 fb13-fb17 fb1d fb1f-fb28 "
    "fb2a-fb36 fb38-fb3c fb3e fb40-fb41 fb43-fb44 fb46-fbb1 fbd3-fd3d fd50-fd8f fd92-fdc7 fdf0-fdfb fe70-fe74 "
    "fe76-fefc ff21-ff3a ff41-ff5a ff66-ffbe ffc2-ffc7 ffca-ffcf ffd2-ffd7 ffda-ffdc "
)
_D_TABLE = (
    "30-39 660-669 6f0-6f9 7c0-7c9 966-96f 9e6-9ef a66-a6f ae6-aef b66-b6f be6-bef c66-c6f ce6-cef d66-d6f "
    "e50-e59 ed0-ed9 f20-f29 1040-1049 1090-1099 17e0-17e9 1810-1819 1946-194f 19d0-19d9 1a80-1a89 1a90-1a99 "
    "1b50-1b59 1bb0-1bb9 1c40-1c49 1c50-1c59 a620-a629 a8d0-a8d9 a900-a909 a9d0-a9d9 aa50-aa59 abf0-abf9 "
    "ff10-ff19 "
)
_U_TABLE = (
    "41-5a c0-d6 d8-de 100 102 104 106 108 10a 10c 10e 110 112 114 116 118 11a 11c 11e 120 122 124 126 128 12a "
    "12c 12e 130 132 134 136 139 13b 13d 13f 141 143 145 147 14a 14c 14e 150 152 154 156 158 15a 15c 15e 160 162 "
    "164 166 168 16a 16c 16e 170 172 174 176 178-179 17b 17d 181-182 184 186-187 189-18b 18e-191 193-194 196-198 "
    "19c-19d 19f-1a0 1a2 1a4 1a6-1a7 1a9 1ac 1ae-1af 1b1-1b3 1b5 1b7-1b8 1bc 1c4 1c7 1ca 1cd 1cf 1d1 1d3 1d5 1d7 "
    "1d9 1db 1de 1e0 1e2 1e4 1e6 1e8 1ea 1ec 1ee 1f1 1f4 1f6-1f8 1fa 1fc 1fe 200 202 204 206 208 20a 20c 20e 210 "
    "212 214 216 218 21a 21c 21e 220 222 224 226 228 22a 22c 22e 230 232 23a-23b 23d-23e 241 243-246 248 24a 24c "
    "24e 370 372 376 386 388-38a 38c 38e-38f 391-3a1 3a3-3ab 3cf 3d2-3d4 3d8 3da 3dc 3de 3e0 3e2 3e4 3e6 3e8 3ea "
    "3ec 3ee 3f4 3f7 3f9-3fa 3fd-42f 460 462 464 466 468 46a 46c 46e 470 472 474 476 478 47a 47c 47e 480 48a 48c "
    "48e 490 492 494 496 498 49a 49c 49e 4a0 4a2 4a4 4a6 4a8 4aa 4ac 4ae 4b0 4b2 4b4 4b6 4b8 4ba 4bc 4be 4c0-4c1 "
    "4c3 4c5 4c7 4c9 4cb 4cd 4d0 4d2 4d4 4d6 4d8 4da 4dc 4de 4e0 4e2 4e4 4e6 4e8 4ea 4ec 4ee 4f0 4f2 4f4 4f6 4f8 "
    "4fa 4fc 4fe 500 502 504 506 508 50a 50c 50e 510 512 514 516 518 51a 51c 51e 520 522 524 526 531-556 "
    "10a0-10c5 10c7 10cd 1e00 1e02 1e04 1e06 1e08 1e0a 1e0c 1e0e 1e10 1e12 1e14 1e16 1e18 1e1a 1e1c 1e1e 1e20 "
    "1e22 1e24 1e26 1e28 1e2a 1e2c 1e2e 1e30 1e32 1e34 1e36 1e38 1e3a 1e3c 1e3e 1e40 1e42 1e44 1e46 1e48 1e4a "
    "1e4c 1e4e 1e50 1e52 1e54 1e56 1e58 1e5a 1e5c 1e5e 1e60 1e62 1e64 1e66 1e68 1e6a 1e6c 1e6e 1e70 1e72 1e74 "
    "1e76 1e78 1e7a 1e7c 1e7e 1e80 1e82 1e84 1e86 1e88 1e8a 1e8c 1e8e 1e90 1e92 1e94 1e9e 1ea0 1ea2 1ea4 1ea6 "
    "1ea8 1eaa 1eac 1eae 1eb0 1eb2 1eb4 1eb6 1eb8 1eba 1ebc 1ebe 1ec0 1ec2 1ec4 1ec6 1ec8 1eca 1ecc 1ece 1ed0 "
    "1ed2 1ed4 1ed6 1ed8 1eda 1edc 1ede 1ee0 1ee2 1ee4 1ee6 1ee8 1eea 1eec 1eee 1ef0 1ef2 1ef4 1ef6 1ef8 1efa "
    "1efc 1efe 1f08-1f0f 1f18-1f1d 1f28-1f2f 1f38-1f3f 1f48-1f4d 1f59 1f5b 1f5d 1f5f 1f68-1f6f 1fb8-1fbb "
    "1fc8-1fcb 1fd8-1fdb 1fe8-1fec 1ff8-1ffb 2102 2107 210b-210d 2110-2112 2115 2119-211d 2124 2126 2128 "
    "212a-212d 2130-2133 213e-213f 2145 2160-216f 2183 24b6-24cf 2c00-2c2e 2c60 2c62-2c64 2c67 2c69 2c6b "
    "2c6d-2c70 2c72 2c75 2c7e-2c80 2c82 2c84 2c86 2c88 2c8a 2c8c 2c8e 2c90 2c92 2c94 2c96 2c98 2c9a 2c9c 2c9e "
    "2ca0 2ca2 2ca4 2ca6 2ca8 2caa 2cac 2cae 2cb0 2cb2 2cb4 2cb6 2cb8 2cba 2cbc 2cbe 2cc0 2cc2 2cc4 2cc6 2cc8 "
    "2cca 2ccc 2cce 2cd0 2cd2 2cd4 2cd6 2cd8 2cda 2cdc 2cde 2ce0 2ce2 2ceb 2ced 2cf2 a640 a642 a644 a646 a648 "
    "a64a a64c a64e a650 a652 a654 a656 a658 a65a a65c a65e a660 a662 a664 a666 a668 a66a a66c a680 a682 a684 "
    "a686 a688 a68a a68c a68e a690 a692 a694 a696 a722 a724 a726 a728 a72a a72c a72e a732 a734 a736 a738 a73a "
    "a73c a73e a740 a742 a744 a746 a748 a74a a74c a74e a750 a752 a754 a756 a758 a75a a75c a75e a760 a762 a764 "
    "a766 a768 a76a a76c a76e a779 a77b a77d-a77e a780 a782 a784 a786 a78b a78d a790 a792 a7a0 a7a2 a7a4 a7a6 "
    "a7a8 a7aa ff21-ff3a "
)


def _cls(table: str) -> str:
    """A character-class body from a table of hex code points and ranges."""
    out = []
    for item in table.split():
        lo, _, hi = item.partition("-")
        out.append(f"\\u{int(lo, 16):04x}" + (f"-\\u{int(hi, 16):04x}" if hi else ""))
    return "".join(out)


# characters outside ASCII that Java upper- or lower-cases to an ASCII letter (JFlex's %caseless matches them too)
_CASELESS_EXTRA = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}


def _ci(text: str) -> str:
    """A literal matched the way JFlex's %caseless matches literals (ASCII letters in either case)."""
    return "".join(f"[{c.upper()}{c.lower()}{_CASELESS_EXTRA.get(c.lower(), '')}]" if c.isascii() and c.isalpha()
                   else regex.escape(c) for c in text)


def _alt(*words: str) -> str:
    return "(?:" + "|".join(_ci(w) for w in words) + ")"


_JL = _cls(_L_TABLE)
_JD = _cls(_D_TABLE)
_JU = _cls(_U_TABLE)
_LD = f"[{_JL}{_JD}]"

# ---- the lexer's macros, in Python regex syntax ----
_SGML = (r"<(?:[!?][A-Za-z\-][^>\r\n]*|[A-Za-z][A-Za-z0-9_:.\-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.\-]*|[A-Za-z]"
         r"[A-Za-z0-9_:.\-]*[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")))*[ ]*/?|/[A-Za-z][A-Za-z0-9_:.\-]*)[ ]*>")
_SPMDASH = rf"(?:&{_alt('MD', 'mdash', 'ndash')};|[\u0096\u0097\u2013\u2014\u2015])"
_SPAMP = _ci("&amp;")
_SPPUNC = rf"&(?:{_alt('HT', 'TL', 'UR', 'LR', 'QC', 'QL', 'QR', 'odq', 'cdq')}|#[0-9]+);"
_SPLET = rf"&[aeiouAEIOU]{_alt('acute', 'grave', 'uml')};"
_SPACE = r"[ \t\u00a0\u2000-\u200a\u3000]"
_NEWLINE = r"(?:\r|\r?\n|\u2028|\u2029|\x0b|\x0c|\x85)"
_SPACENL = rf"(?:{_SPACE}|{_NEWLINE})"
_SPACENLS = rf"{_SPACENL}+"
_SENTEND = rf"{_SPACENL}(?:{_SPACENL}|[{_JU}]|{_SGML})"
_DIGIT = rf"[{_JD}\u07c0-\u07c9]"
_DATE = rf"{_DIGIT}{{1,2}}[\-/]{_DIGIT}{{1,2}}[\-/]{_DIGIT}{{2,4}}"
_NUM = rf"(?:{_DIGIT}+|{_DIGIT}*(?:[.:,\u00ad\u066b\u066c]{_DIGIT}+)+)"
_NUMBER = rf"[\-+]?{_NUM}"
_SUBSUPNUM = r"[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+|[\u2080-\u2089]+)"
_FRAC = rf"(?:{_DIGIT}{{1,4}}[\- \u00a0])?{_DIGIT}{{1,4}}(?:\\?/|\u2044){_DIGIT}{{1,4}}"
_FRAC2 = r"[\u00bc\u00bd\u00be\u2153-\u215e]"
_DOLSIGN = r"(?:[A-Z]*\$|#)"
_DOLSIGN2 = r"[\u00a2\u00a3\u00a4\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]"
_LETTER_EXTRA = (r"\u00ad\u0237-\u024f\u02c2-\u02c5\u02d2-\u02df\u02e5-\u02ff\u0300-\u036f\u0370-\u037d\u0384\u0385"
                 r"\u03cf\u03f6\u03fc-\u03ff\u0483-\u0487\u04cf\u04f6-\u04ff\u0510-\u0525\u055a-\u055f\u0591-\u05bd"
                 r"\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0615-\u061a\u063b-\u063f\u064b-\u065e\u0670\u06d6-\u06ef"
                 r"\u06fa-\u06ff\u070f\u0711\u0730-\u074f\u0750-\u077f\u07a6-\u07b1\u07ca-\u07f5\u07fa\u0900-\u0903"
                 r"\u093c\u093e-\u094e\u0951-\u0955\u0962-\u0963\u0981-\u0983\u09bc-\u09c4\u09c7\u09c8\u09cb-\u09cd"
                 r"\u09d7\u09e2\u09e3\u0a01-\u0a03\u0a3c\u0a3e-\u0a4f\u0a81-\u0a83\u0abc-\u0acf\u0b82\u0bbe-\u0bc2"
                 r"\u0bc6-\u0bc8\u0bca-\u0bcd\u0c01-\u0c03\u0c3e-\u0c56\u0d3e-\u0d44\u0d46-\u0d48\u0e30-\u0e3a"
                 r"\u0e47-\u0e4e\u0eb1-\u0ebc\u0ec8-\u0ecd")
_LETTER = rf"(?:[{_JL}{_LETTER_EXTRA}]|{_SPLET})"
_WORD = rf"{_LETTER}(?:{_LETTER}|{_DIGIT})*(?:[.!?]{_LETTER}(?:{_LETTER}|{_DIGIT})*)*"
_FILENAME_EXT = _alt("bat", "bmp", "c", "class", "cgi", "cpp", "dll", "doc", "docx", "exe", "gif", "gz", "h", "htm",
                     "html", "jar", "java", "jpeg", "jpg", "mov", "mp3", "pdf", "php", "pl", "png", "ppt", "ps", "py",
                     "sql", "tar", "txt", "wav", "x", "xml", "zip")
_FILENAME = rf"(?:{_LETTER}|{_DIGIT})+(?:\.(?:{_LETTER}|{_DIGIT})+)*\.{_FILENAME_EXT}"
_APOS = rf"(?:['\u0092\u2019]|{_ci('&apos;')})"
_APOSETC = rf"(?:{_APOS}|[`\u0091\u2018\u201b])"
_HYPHEN = r"[\-_\u058a\u2010\u2011]"
_THING = (rf"(?:[dDoOlL]{_APOSETC}{_LD})?{_LD}+(?:{_HYPHEN}(?:[dDoOlL]{_APOSETC}{_LD})?{_LD}+)*")
_THINGA = rf"[A-Z]+(?:(?:[+&]|{_SPAMP})[A-Z]+)+"
_THING3 = r"[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}"
_ACRO_SPECIAL_FIRST = ("Canada", "Sino", "Korean", "EU", "Japan", "non")
_ACRO_SPECIAL = rf"{_alt(*_ACRO_SPECIAL_FIRST)}-{_ci('U.S')}|{_ci('U.S.-')}" \
                rf"{_alt('U.K', 'U.S.S.R')}"
_ACRO = rf"(?:[A-Za-z](?:\.[A-Za-z])*|{_ACRO_SPECIAL})"
_ACRO2 = rf"(?:[A-Za-z](?:\.[A-Za-z])+|{_ACRO_SPECIAL})"
_HTHING = rf"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:[A-Za-z0-9\u00ad]+|{_ACRO2}\.))+"
_REDAUX = rf"{_APOS}(?:[msdMSD]|{_alt('re', 've', 'll')})"
_SWORD = r"[A-Za-z\u00ad]*[A-MO-Za-mo-z]\u00ad*"
_SREDAUX = rf"[nN]{_APOSETC}[tT]"
_APOWORD = "|".join([
    rf"{_APOS}[nN]{_APOS}?", rf"[lLdDjJ]{_APOS}", rf"{_ci('Dunkin')}{_APOS}", rf"{_ci('somethin')}{_APOS}",
    rf"{_ci('ol')}{_APOS}", rf"{_APOS}{_ci('em')}", rf"[A-HJ-XZn]{_APOSETC}[{_JL}]{{2}}[{_JL}]*",
    rf"{_APOS}[2-9]0[sS]", rf"{_APOS}{_ci('til')}[lL]?",
    rf"[{_JL}][{_JL}]*[aeiouyAEIOUY]{_APOSETC}[aeiouA-Z][{_JL}]*", rf"{_APOS}{_ci('cause')}",
    rf"{_ci('cont')}'{_ci('d')}\.?"] + [_ci(w) for w in ("'twas", "nor'easter", "c'mon", "e'er", "s'mores",
                                                           "ev'ry", "li'l", "nat'l")] + [rf"[oO]{_APOSETC}[oO]"])
_APOWORD2 = rf"[yY]{_APOS}"
_FULLURL = rf"{_ci('http')}[sS]?://[^ \t\n\f\r\"<>|(){{}}]+[^ \t\n\f\r\"<>|.!?(){{}},\-]"
_LIKELYURL = (rf"(?:(?:{_ci('www.')}(?:[^ \t\n\f\r\"<>|.!?(){{}},]+\.)+[a-zA-Z]{{2,4}})|"
              rf"(?:(?:[^ \t\n\f\r\"`'<>|.!?(){{}},-_$]+\.)+{_alt('com', 'net', 'org', 'edu')}))"
              rf"(?:/[^ \t\n\f\r\"<>|()]+[^ \t\n\f\r\"<>|.!?(){{}},\-])?")
_EMAIL = (rf"(?:{_ci('&lt;')}|<)?[a-zA-Z0-9][^ \t\n\f\r\"<>|()\u00a0{{}}]*@(?:[^ \t\n\f\r\"<>|(){{}}.\u00a0]+\.)*"
          rf"(?:[^ \t\n\f\r\"<>|(){{}}.\u00a0]+)(?:{_ci('&gt;')}|>)?")
_TWITTER = rf"@[a-zA-Z_][a-zA-Z_0-9]*|#{_LETTER}+"


def _abbr(*items: str) -> str:
    """Abbreviation stems: '[X]rest' keeps X case-sensitive (a character class), the rest is caseless."""
    out = []
    for item in items:
        out.append(item[:3] + _ci(item[3:]) if item.startswith("[") else _ci(item))
    return "(?:" + "|".join(out) + ")"


# the letter stems of the abbreviations that end with a period (ABBREV1, ABBREV2, ABBREV3, "pty." / "co.") in lower
# case: a word that is not one of them nor a single letter (an acronym) is not such an abbreviation before a period
ABBREV_STEMS: set[str] = set()
_STEMS: dict[str, set[str]] = {"1": {"ed", "ph"}, "2": set(), "3": set(), "co": set()}  # by rule: ABBREV1, ...


def _stems(*words: str, group: str = "1") -> tuple[str, ...]:
    stems = {w.replace("[", "").replace("]", "").lower() for w in words if "." not in w}
    ABBREV_STEMS.update(stems)
    _STEMS[group].update(stems)
    return words


_ABMONTH = _alt(*_stems("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec"))
_ABDAYS = _alt(*_stems("Mon", "Tue", "Tues", "Wed", "Thu", "Thurs", "Fri"))
_ABSTATE = _abbr(*_stems(
    "Ala", "Ariz", "[A]z", "[A]rk", "Calif", "Colo", "Conn", "Ct", "Dak", "[D]el", "Fla", "Ga", "[I]ll", "Ind",
    "Kan", "Kans", "Ky", "[L]a", "[M]ass", "Md", "Mich", "Minn", "[M]iss", "Mo", "Mont", "Neb", "Nev", "Okla",
    "[O]re", "[P]a", "Penn", "Tenn", "[T]ex", "Va", "Vt", "[W]ash", "Wis", "Wisc", "Wyo"))
_ABCOMP_WORDS = _alt(*_stems("Inc", "Co", "Cos", "Corp", "Ltd", "Plc", "Rt", "Bancorp", "Bhd", "Assn", "Univ", "Intl",
                             "Sys"))
_ABCOMP = rf"(?:{_ABCOMP_WORDS}|[pP][pP]?[tT][ye][sS]?)"
_stems("pty", "ptys", "pte", "ptes", "ppty", "pptys", "ppte", "pptes")
_ABNUM = _alt(*_stems("tel", "est", "ext", "sq"))
_ABPTIT = rf"(?:{_alt(*_stems('Jr', 'Sr', 'Bros', 'Blvd', 'Rd', 'Esq'))}|{_alt('Ed', 'Ph')}\.[dD])"
_ABOTHER = _alt(*_stems('etc', 'al', 'seq', 'Bldg'))
_ABBREV1 = rf"(?:{_ABMONTH}|{_ABDAYS}|{_ABSTATE}|{_ABCOMP}|{_ABNUM}|{_ABPTIT}|{_ABOTHER})\."
_ABTITLE = _abbr(*_stems(group="2", *(
    "Mr", "Mrs", "Ms", "[M]iss", "Dr", "Drs", "Prof", "Profs", "Sen", "Sens", "Rep", "Reps", "Atty", "Attys", "Lt",
    "Col", "Gen", "Messrs", "Gov", "Govs", "Adm", "Rev", "Maj", "Sgt", "Cpl", "Pvt", "Capt", "St", "Ste", "Ave",
    "Pres", "Lieut", "Hon", "Brig", "Cmdr", "Comdr", "Pfc", "Spc", "Supt", "Supts", "Det", "Mt", "Ft", "Adj", "Adv",
    "Asst", "Assoc", "Ens", "Insp", "Mlle", "Mme", "Msgr", "Sfc")))
_ABCOMP2 = rf"(?:{_alt(*_stems('Invt', 'Elec', 'Natl', 'Dept', group='2'))}|[mM][ft][gG])"
_stems("mfg", "mtg", group="2")
_ABOTHER4 = _alt(*_stems('vs', 'Alex', 'Wm', 'Jos', 'Cie', 'a.k.a', 'cf', 'TREAS', 'Ph', group='2'))
_ABBREV4 = rf"(?:{_ABTITLE}|{_ABOTHER4}|{_ACRO}|{_ABCOMP2})"
_ABBREV2 = rf"{_ABBREV4}\."
_ACRONYM = rf"{_ACRO}\."
_ABBREV3 = rf"{_alt(*_stems('ca', 'fig', 'figs', 'prop', 'no', 'nos', 'art', 'bldg', 'pp', 'op', group='3'))}\."
_stems("pte", "pty", "co", group="co")  # "(?:[pP][tT][eyEY]|[cC][oO])\\." before " ltd"
_ACRONYM_NEXT = "|".join(
    f"[{w[0]}]{_ci(w[1:])}" for w in (
        "About", "According", "Additionally", "After", "An", "A", "As", "At", "But", "Earlier", "He", "Her", "Here",
        "However", "If", "In", "It", "Last", "Many", "More", "Mr.", "Ms.", "Now", "Once", "One", "Other", "Our",
        "She", "Since", "So", "Some", "Such", "That", "The", "Their", "Then", "There", "These", "They", "This", "We",
        "When", "While", "What", "Yet", "You"))
_PHONE = (r"(?:\([0-9]{2,3}\)[ \u00a0]?|(?:\+\+?)?(?:[0-9]{2,4}[\- \u00a0])?[0-9]{2,4}[\- \u00a0])[0-9]{3,4}"
          r"[\- \u00a0]?[0-9]{3,5}|(?:(?:\+\+?)?[0-9]{2,4}\.)?[0-9]{2,4}\.[0-9]{3,4}\.[0-9]{3,5}")
_LDOTS = r"\.{3,5}|(?:\.[ \u00a0]){2,4}\.|[\u0085\u2026]"
_INSENTP = r"[,;:\u3001]"
_QUOTES = (rf"{_APOS}|''|[`\u2018\u2019\u201a\u201b\u201c\u201d\u0091\u0092\u0093\u0094\u201e\u201f\u2039\u203a"
           r"\u00ab\u00bb]{1,2}")
_DBLQUOT = rf"(?:\"|{_ci('&quot;')})"
_TBSPEC = (rf"-{_alt('RRB', 'LRB', 'RCB', 'LCB', 'RSB', 'LSB')}-|{_ci('C.D.s')}|{_ci('pro-')}|{_ci('anti-')}|"
           rf"[sS](?:&|{_SPAMP}){_ci('P-500')}|[sS](?:&|{_SPAMP}){_ci('Ls')}|{_ci('Cap')}{_APOS}[nN]|[cC]{_APOS}"
           rf"{_ci('est')}")
_TBSPEC2 = rf"{_APOS}[0-9][0-9]"
_SMILEY = r"[<>]?[:;=][\-o*']?[()DPdpO\\{@|\[\]]"
_ASIANSMILEY = (r"[\^x=~<>]\.\[\^[xX]=~<>\]|[\-\^x=~<>']_[\-\^x=~<>']|\([\-\^x=~<>'][_.]?[\-\^x=~<>']\)|"
                r"\([\^x=~<>']-[\^x=~<>'`]\)")
_MISCSYMBOL = (r"[+%&~\^|\\\u00a6\u00a7\u00a8\u00a9\u00ac\u00ae\u00af\u00b0-\u00ba\u00d7\u00f7\u0387\u05be\u05c0"
               r"\u05c3\u05c6\u05f3\u05f4\u0600-\u0603\u0606-\u060a\u060c\u0614\u061b\u061e\u066a\u066d"
               r"\u0703-\u070d\u07f6-\u07f8\u0964\u0965\u0e4f\u1fbd\u2016\u2017\u2020-\u2023\u2030-\u2038\u203b"
               r"\u203e-\u2042\u2044\u207a-\u207f\u208a-\u208e\u2100-\u214f\u2190-\u21ff\u2200-\u2bff\u3012"
               r"\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")

# ---- token actions ----
_SKIP = 0       # no token (spaces, DEL, untokenizable characters)
_NL = 1         # a line break of the output
_SAME = 2       # the matched text
_SOFT = 3       # the matched text without soft hyphens
_NBSP = 4       # spaces become no-break spaces
_PHONEA = 5     # spaces -> no-break spaces, brackets -> -LRB- / -RRB-
_PARENS = 6     # brackets -> -LRB- / -RRB-
_QLEFT = 7      # quotes, probably opening
_QRIGHT = 8     # quotes, probably closing
_AMP = 9        # &amp; -> &
_FIXED = 10     # a fixed replacement (the rule's value)
_CURRENCY = 11
_FRACTION = 12
_DASHES = 13    # 3-4 hyphens -> --
_ACRONYM_A = 14  # sentence-final acronym: its text then (again) the period
_BACK = 15      # the text less the rule's value characters, which are lexed again
_PERIOD_AGAIN = 16  # the text, then its final period lexed again

_PTE_CO = r"(?:[pP][tT][eyEY]|[cC][oO])\."
_ACRONYM_CTX = rf"(?:{_SPACENLS})(?:{_ACRONYM_NEXT}|{_SGML}){_SPACENL}"

# (main part, trailing context or None, action, value); order = priority on equal match lengths
_RULES: list[tuple[str, str | None, int, object]] = [
    (r"[cC]\+\+", None, _SAME, None),
    (r"[cCfF]#", None, _SAME, None),
    (_ci("cannot"), None, _BACK, 3),
    ("'" + _ci("twas"), None, _BACK, 3),
    ("'" + _ci("tis"), None, _BACK, 2),
    (_alt("gonna", "gotta", "lemme", "gimme", "wanna"), None, _BACK, 2),
    (_SGML, None, _NBSP, None),
    (_SPMDASH, None, _FIXED, "--"),
    (_SPAMP, None, _AMP, None),
    (_SPPUNC, None, _SAME, None),
    (_WORD, _REDAUX, _SOFT, None),
    (_SWORD, _SREDAUX, _SOFT, None),
    (_WORD, None, _SOFT, None),
    (_APOWORD, None, _SAME, None),
    (_APOWORD2, f"[{_JL}]", _SAME, None),
    (_FULLURL, None, _SAME, None),
    (_LIKELYURL, None, _SAME, None),
    (_EMAIL, None, _SAME, None),
    (_TWITTER, None, _SAME, None),
    (_REDAUX, "[^A-Za-z]", _QRIGHT, None),
    (_SREDAUX, "[^A-Za-z]", _QRIGHT, None),
    (_DATE, None, _SAME, None),
    (_NUMBER, None, _SOFT, None),
    (_SUBSUPNUM, None, _SAME, None),
    (_FRAC, None, _NBSP, None),
    (_FRAC2, None, _FRACTION, None),
    (_TBSPEC, None, _AMP, None),
    (_THING3, None, _SAME, None),
    (_DOLSIGN, None, _SAME, None),
    (_DOLSIGN2, None, _CURRENCY, None),
    (_ACRONYM, _ACRONYM_CTX, _ACRONYM_A, None),
    (_ABBREV3, rf"{_SPACENL}?[{_JD}]", _SAME, None),
    (_PTE_CO, rf"{_SPACE}{_alt('ltd', 'lim')}", _SAME, None),
    (_ABBREV1, _SENTEND, _PERIOD_AGAIN, None),
    (_ABBREV1, r"(?s:..)", _SAME, None),
    (_ABBREV1, None, _PERIOD_AGAIN, None),
    (_ABBREV2, None, _SAME, None),
    (_ABBREV4, _SPACE, _SAME, None),
    (_ACRO, _SPACENL, _SAME, None),
    (_TBSPEC2, _SPACENL, _SAME, None),
    (_FILENAME, rf"(?:{_SPACENL}|[.?!,])", _SAME, None),
    (rf"{_WORD}\.", _INSENTP, _SOFT, None),
    (_PHONE, None, _PHONEA, None),
    (_DBLQUOT, "[A-Za-z0-9$]", _QLEFT, None),
    (_DBLQUOT, None, _QRIGHT, None),
    (r"\x7f", None, _SKIP, None),
    (rf"<|{_ci('&lt;')}", None, _FIXED, "<"),
    (rf">|{_ci('&gt;')}", None, _FIXED, ">"),
    (_SMILEY, "[^A-Za-z0-9]", _PARENS, None),
    (_ASIANSMILEY, None, _PARENS, None),
    (r"\{", None, _FIXED, "-LCB-"),
    (r"\}", None, _FIXED, "-RCB-"),
    (r"\[", None, _FIXED, "-LSB-"),
    (r"\]", None, _FIXED, "-RSB-"),
    (r"\(", None, _FIXED, "-LRB-"),
    (r"\)", None, _FIXED, "-RRB-"),
    (r"-+", None, _DASHES, None),
    (_LDOTS, None, _FIXED, "..."),
    (r"@+|#+|_+", None, _SAME, None),
    (r"\*+|(?:\\\*){1,3}", None, _SAME, None),
    (_INSENTP, None, _SAME, None),
    (r"[?!]+", None, _SAME, None),
    (r"[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]", None, _SAME, None),
    (r"=", None, _SAME, None),
    (r"/", None, _SAME, None),
    (rf"{_HTHING}\.", _INSENTP, _SOFT, None),
    (_HTHING, None, _SOFT, None),
    (rf"{_THING}\.", _INSENTP, _SAME, None),
    (_THING, None, _SAME, None),
    (rf"{_THINGA}\.", _INSENTP, _AMP, None),
    (_THINGA, None, _AMP, None),
    ("'", r"[A-Za-z][^ \t\n\r\u00a0]", _QLEFT, None),
    (_REDAUX, None, _QRIGHT, None),
    (_SREDAUX, None, _QRIGHT, None),
    (_QUOTES, None, _QRIGHT, None),
    (r"<<|>>", None, _SAME, None),
    (_MISCSYMBOL, None, _SAME, None),
    (r"\x00|[ \t\u00a0\u2000-\u200a\u3000]+|[\u200b\u200e\u200f\ufeff]", None, _SKIP, None),
    (_NEWLINE, None, _NL, None),
    (_ci("&nbsp;"), None, _SKIP, None),
]

def _narrow_table(table: str) -> str:
    """The part of a code-point table up to U+00FF."""
    out = []
    for item in table.split():
        lo, _, hi = item.partition("-")
        top = min(int(hi or lo, 16), 0xFF)
        if int(lo, 16) <= 0xFF:
            out.append(lo if top == int(lo, 16) else f"{lo}-{top:x}")
    return " ".join(out)


# The rules come in two compiled sets: the lexer's own, and the same rules with the big character classes cut down
# to Latin-1, which match any text without a character beyond U+00FF exactly as the full ones do (the classes agree
# on every such character) and compile ~3 times faster.  A rule is compiled when a text first needs it: the rules of
# abbreviations and acronyms (~half the compile time) only once a text may hold one (_GUARDS).
_NARROWED = [(_LETTER_EXTRA, r"\u00ad"), (_JL, _cls(_narrow_table(_L_TABLE))), (_JD, _cls(_narrow_table(_D_TABLE))),
             (_JU, _cls(_narrow_table(_U_TABLE)))]
_compiled: dict[bool, list[regex.Pattern[str] | None]] = {}  # narrow? -> each rule's pattern once compiled
_by_first: dict[tuple[str, bool], list[int]] = {}  # (a character, narrow?) -> the rules a match may start with

# A rule of the abbreviations' family (_GUARDS) starts with letters (_WORD_RUN: all of them) that are one of the
# stems (ABBREV_STEMS, "Ed" / "Ph" of "Ph.D."), a single letter (acronyms, "a.k.a.") or the first word of "non-U.S"
# and the like.  _DOTTED rules end with a period: their stem is followed by "." (by "-" in "non-U.S.");
# _SPACED / _SPACENLED rules are followed by a space (or a line break), so their main part is the whole run of letters,
# periods and hyphens (_RUN), which has a hyphen only in the acronyms with periods.
_DOTTED, _SPACED, _SPACENLED = 1, 2, 3
_GUARDS: list[tuple[int, frozenset[str], bool] | None] = [  # (kind, the rule's stems, acronyms too?)
    {_ACRONYM: (_DOTTED, frozenset(), True), _ABBREV3: (_DOTTED, frozenset(_STEMS["3"]), False),
     _PTE_CO: (_DOTTED, frozenset(_STEMS["co"]), False), _ABBREV1: (_DOTTED, frozenset(_STEMS["1"]), False),
     _ABBREV2: (_DOTTED, frozenset(_STEMS["2"]), True), _ABBREV4: (_SPACED, frozenset(_STEMS["2"]), True),
     _ACRO: (_SPACENLED, frozenset(), True)}.get(main) for main, _, _, _ in _RULES]
_RUN_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\u0130\u0131\u017f\u212a")
_WORD_RUN = regex.compile(r"[A-Za-z\u0130\u0131\u017f\u212a]*")
_RUN = regex.compile(r"[A-Za-z\u0130\u0131\u017f\u212a.\-]*")
_FOLD = str.maketrans("\u0130\u0131\u017f\u212a", "iisk")  # what %caseless matches as i, i, s, k
_HYPHENED = frozenset(w.lower() for w in _ACRO_SPECIAL_FIRST)  # followed by "-U.S" (_U_S)
_U_S = regex.compile(_ci("U.S"))
_SPACE_CHARS = frozenset(" \t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u3000")
_SPACENL_CHARS = _SPACE_CHARS | frozenset("\r\n\u2028\u2029\x0b\x0c\x85")


def _pattern(i: int, narrow: bool) -> regex.Pattern[str]:
    patterns = _compiled.setdefault(narrow, [None] * len(_RULES))
    pattern = patterns[i]
    if pattern is None:
        main, ctx = _RULES[i][:2]
        if narrow:
            for full, cut in _NARROWED:
                main = main.replace(full, cut)
                ctx = ctx and ctx.replace(full, cut)
        pattern = patterns[i] = regex.compile(f"(?P<t>{main})" + (f"(?:{ctx})" if ctx else ""), regex.POSIX)
    return pattern


def _first(char: str, narrow: bool) -> list[int]:
    """The rules (their indices in priority order) that can match a text starting with ``char``: a guarded rule
    if ``char`` is a letter, another if it partially matches ``char`` alone (as a rule that matches a longer text
    starting with ``char`` does)."""
    rules = _by_first.get((char, narrow))
    if rules is None:
        letter = char in _RUN_LETTERS
        rules = _by_first[char, narrow] = [
            i for i, guard in enumerate(_GUARDS)
            if (letter if guard else _pattern(i, narrow).match(char, partial=True) is not None)]
    return rules


_WIDE = regex.compile(r"[^\x00-\xff]")

_QUOTE_SUBS = [
    (regex.compile(r"[\u0091\u2018\u201b\u2039]"), "`"),
    (regex.compile(r"[\u0092\u2019\u203a]"), "'"),
    (regex.compile(r"[\u0093\u201c\u00ab]"), "``"),
    (regex.compile(r"[\u0094\u201d\u00bb]"), "''"),
]
_SINGLE = regex.compile(r"&apos;|'")
_DOUBLE = regex.compile(r"\"|&quot;")
_AMP_ENTITY = regex.compile(r"(?i:&amp;)")
_FRACTIONS = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}
_CURRENCIES = str.maketrans({"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$",
                             "\u20ac": "$"})


def _quotes(text: str, left: bool) -> str:
    text = _SINGLE.sub("`" if left else "'", text)
    text = _DOUBLE.sub("``" if left else "''", text)
    for pattern, repl in _QUOTE_SUBS:
        text = pattern.sub(repl, text)
    return text


def _soft(text: str) -> str:
    if "\u00ad" not in text:
        return text
    return text.replace("\u00ad", "") or "-"


def lex(doc: str, pos: int, stop: int, tokens: list[str | None]) -> int:
    """Lex ``doc`` from ``pos`` until a token ends at or after ``stop``; appends token texts (None for a line
    break) and returns where lexing stopped."""
    end = len(doc)
    nl = limit = -1
    narrow = False
    while pos < stop and pos < end:
        if pos > nl:
            # matches are looked for up to the end of the next line that is not blank (the regex module scans
            # ahead for a rule's required characters); only SGML tags can run further
            nl = doc.find("\n", pos)
            if nl < 0:
                nl = limit = end
            else:
                limit = nl
                while True:
                    nxt = doc.find("\n", limit + 1)
                    if nxt < 0 or not doc[limit + 1:nxt].isspace() and nxt > limit + 1:
                        break
                    limit = nxt
                limit = end if nxt < 0 or doc.find("<", pos, nxt) >= 0 else nxt
            # the narrow rules serve while no character beyond Latin-1 is in reach (checked for short reaches)
            narrow = limit - pos <= 4096 and _WIDE.search(doc, pos, limit) is None
            patterns = _compiled.setdefault(narrow, [None] * len(_RULES))
        best = 0
        found = None
        run = -1
        for i in _first(doc[pos], narrow):
            guard = _GUARDS[i]
            if guard:
                if run < 0:
                    word_end = _WORD_RUN.match(doc, pos, limit).end()  # type: ignore[union-attr]
                    key = doc[pos:word_end].translate(_FOLD).lower()
                    follow = doc[word_end:word_end + 1] if word_end < limit else ""
                    hyphened = follow == "-" and key in _HYPHENED and _U_S.match(doc, word_end + 1) is not None
                    run = _RUN.match(doc, pos, limit).end() if follow else word_end  # type: ignore[union-attr]
                    dots = doc.find(".", pos, run) >= 0
                kind, stems, acronyms = guard
                single = acronyms and len(key) == 1
                if kind == _DOTTED:
                    if not (follow == "." and (single or key in stems) or acronyms and hyphened):
                        continue
                elif not (run < limit and doc[run] in (_SPACE_CHARS if kind == _SPACED else _SPACENL_CHARS) and (
                        (single or key in stems) if run == word_end else dots and (single or hyphened))):
                    continue
            m = (patterns[i] or _pattern(i, narrow)).match(doc, pos, limit)
            if m is not None and m.end() - pos > best:
                best = m.end() - pos
                found = (m, i)
        if found is None:  # untokenizable: deleted
            pos += 1
            continue
        m, i = found
        action, value = _RULES[i][2:]
        text = m.group("t")
        nxt = m.end("t")
        if action == _SKIP:
            pass
        elif action == _NL:
            tokens.append(None)
        elif action == _SAME:
            tokens.append(text)
        elif action == _SOFT:
            tokens.append(_soft(text))
        elif action == _NBSP:
            tokens.append(text.replace(" ", "\u00a0"))
        elif action == _PHONEA:
            tokens.append(text.replace(" ", "\u00a0").replace("(", "-LRB-").replace(")", "-RRB-"))
        elif action == _PARENS:
            tokens.append(text.replace("(", "-LRB-").replace(")", "-RRB-"))
        elif action == _QLEFT or action == _QRIGHT:
            tokens.append(_quotes(text, action == _QLEFT))
        elif action == _AMP:
            tokens.append(_AMP_ENTITY.sub("&", text))
        elif action == _FIXED:
            tokens.append(value)  # type: ignore[arg-type]
        elif action == _CURRENCY:
            tokens.append(text.translate(_CURRENCIES))
        elif action == _FRACTION:
            tokens.append(_FRACTIONS.get(text, text))
        elif action == _DASHES:
            tokens.append("--" if 3 <= len(text) <= 4 else text)
        elif action == _BACK:
            nxt -= value  # type: ignore[operator]
            tokens.append(doc[pos:nxt])
        elif action == _PERIOD_AGAIN:
            tokens.append(text)
            nxt -= 1
        else:  # _ACRONYM_A
            text = text.rstrip(" \t\n\x0b\x0c\r\x85")
            nxt = pos + len(text)
            if len(text) == 2:
                nxt -= 1
                tokens.append(text[0])
            else:
                tokens.append(text)
                nxt -= 1
        pos = nxt
    return pos
