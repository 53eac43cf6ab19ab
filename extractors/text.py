"""What of a message may be learned from, before any parsing.

Never read: Mnemo's own memory block, fenced code, quoted (``>``) lines, lines of code, logs and
stack traces, and text the user pasted from elsewhere: emails (headers, greetings and sign-offs,
forwarded blocks), web pages and documents (HTML, markdown headings, tables), tool output, and
whatever follows a line that announces a paste ("here's the email:", "the doc says:"). Pasted text
is never the speaker's own fact or rule, whatever it says.
"""

from __future__ import annotations

import re

MEMORY_BLOCK = re.compile(r"<mnemo-memory\b.*?</mnemo-memory>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
# a quoted line ("> ..."), or a whole line in quotation marks: someone else's words
_QUOTE_LINE = re.compile(
    r"^\s*>.*$|^\s*[\"\u201c\u201e](?:[^\"\u201c\u201d\n]*?\s){5,}[^\"\u201c\u201d\n]*[\"\u201d][\s.,!?]*$",
    re.MULTILINE,
)
_INLINE_CODE = re.compile(r"`([^`\n]{1,200})`")
_LIST_MARK = re.compile(r"^\s*(?:[-*\u2022\u2013\u00b7]|\d+[.)]|[a-z][.)])\s+", re.MULTILINE)
_SPACES = re.compile(r"[ \t]+")
# (flags are pairs of regional indicators, U+1F1E6..1F1FF)
_EMOJI_BREAK = re.compile(
    "[ \t]*[\U0001f1e6-\U0001f1ff\U0001f300-\U0001faff\u2600-\u27bf\ufe0f\u200d]+"
    "(?:[ \t]+(?=[\\w\u2014\u2013-])|[ \t]*$)"
)
_LAUGHTER = re.compile(
    r"(?<![\w'])(?:lol+|lmao|rofl|ha(?:ha)+h?|he(?:he)+|xd|:\)|:\(|:D|;\))(?![\w'])|[\U0001F300-\U0001FAFF\u2600-\u27BF]",
    re.I,
)

# Lines that are logs or code, not something the user is telling us.
_LOG_LINE = re.compile(
    r"^\s*(?:\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|TRACE|CRITICAL|PANIC|NOTICE)\]?[:\s]|Traceback\b|"
    r"\s*File \"|[\w.$]+(?:Error|Exception):|Exception in thread\b|"
    r"\s*\.\.\.\s*\d+\s+more\b|\[?\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:|at\s+[\w$.<>]+\(.*\)\s*$|"
    r"\s*at\s+[\w$.]+\s*\(|Caused by:|E\s{2,}|\s*\^+\s*$|"
    # (but "PASSED my driving test!!": a shout, not a test run)
    r"(?:FAILED|PASSED)\b(?!\s+[A-Z]{2,}\b|\s+(?:my|our|it|the|again)\b)|"
    r"npm ERR!|error(?:\[\w+\])?:|##\[\w+\]|make(?:\[\d+\])?: \*\*\*|"  # (a CI runner's markers)
    r"warning:|\$\s|#\s*\d+\s|\d+\s+(?:passed|failed)|\u2713|\u2717|\u00d7|"
    # "a41c9e2 chore: switch to pnpm": a line of `git log --oneline`
    r"(?=[0-9a-f]*\d)[0-9a-f]{7,40}\s+(?:\(\S+\)\s+)?\S+)",
    re.MULTILINE,
)
_CODE_LINE = re.compile(
    r"(?:[;{}]\s*$|^\s*(?:(?:const|let|var)\s+\w+\s*=|def\s+\w+\s*\(|class\s+\w+\s*[:({]|function\s*\w*\s*\(|"
    r"import\s+[\w.{*]|from\s+[\w.]+\s+import\b|return\s.*[;)]\s*$|#include\b|assert\s|(?:if|for|while)\s*\(|"
    r"@\w+\(|<\?php|package\s+\w+;|public\s+\w+|private\s+\w+|fn\s+\w+\s*\(|func\s+\w+\s*\()"
    r"|(?<![:/])//(?=\s|$)|^\s{4,}\S|^\s*[\]}),]+\s*$|^\s*\"[\w-]+\"\s*:\s)"
)
# a line that ends on a call: code ("setup(app)"), unless it is a sentence that names one ("we dont
# merge one without a working down()")
_CALL_END = re.compile(r"\w\(.*\)\s*[:;]?\s*$")
_PROSE_WORD = re.compile(r"(?<![\w.(])[a-z]{2,}(?![\w(])")
_HTML = re.compile(
    r"<(?:!DOCTYPE|html|head|body|div|span|p|a\s|ul|ol|li|table|tr|td|h[1-6]|br|img|meta|script)\b", re.I
)
_MD_HEADING = re.compile(r"^\s*#{1,6}\s+\S", re.MULTILINE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$|^\s*[A-Z][A-Z_ ]{2,}\s{2,}[A-Z][A-Z_ ]{2,}")
_COLUMNS = re.compile(r"\S\s{3,}\S.*\S\s{3,}\S")
_MAIL_HEADER = re.compile(r"^\s*(?:from|to|cc|bcc|subject|date|sent|reply-to|re|fwd?|author)\s*:\s*\S", re.I)
# "commit 9c1e4b2a7f" over "Author:" and "Date:": a pasted git log
_COMMIT_HEADER = re.compile(r"^\s*commit\s+[0-9a-f]{7,40}(?:\s+\([^()\n]*\))?\s*$", re.I)
_FORWARDED = re.compile(
    r"^\s*(?:-{3,}\s*(?:forwarded|original)\s+message|begin\s+forwarded\s+message|on\s.{3,80}\swrote:\s*$|"
    r".{0,60}\b(?:wrote|said|posted|commented)\s*:\s*$)",
    re.I,
)
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|greetings)\b[^.!?]{0,40}[,!:]?\s*$", re.I
)
_TO_ME = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|greetings)"
    r"(?:\s+(?:there|assistant|claude|chatgpt|gpt|ai|bot|copilot|mnemo))?\s*[,!:]?\s*$",
    re.I,
)
_SIGN_OFF = re.compile(
    r"^\s*(?:best(?:\s+regards)?|kind\s+regards|regards|cheers|thanks|thank\s+you|many\s+thanks|sincerely|"
    r"warm(?:est)?\s+regards|br|all\s+the\s+best|talk\s+soon|yours(?:\s+truly)?|--|—)\s*[,.!]?\s*$",
    re.I,
)
# "Priya: ...", "Agent (Kevin): ...", "Support [bot]: ..."
_SPEAKER_LINE = re.compile(
    r"^\s*([A-Z][\w.'-]{1,20}(?:\s[A-Z][\w.'-]{1,20})?)(?:\s*[(\[][^)\]\n]{1,30}[)\]])?\s*:\s+\S"
)
_DOCUMENT_START = re.compile(
    r"^\s*(?:attendees|participants|agenda|minutes|action\s+items|present|table\s+of\s+contents|abstract)\s*:",
    re.I,
)
_PROMPT = re.compile(
    r"^\s*(?:\$|#|>>>|PS [A-Z]:\\[^>]*>|[A-Z]:\\[^>]*>|[\w.-]+@[\w.-]+:[~/][^$#\n]*[$#])\s+\S"
)
# "name - 06/10/2024 8:14 PM", "alice  10:42 AM": the header of a message in a chat export
_CHAT_STAMP = re.compile(
    r"^\s*[\w.@-]{2,32}(?:\s+[\w.@-]{2,32})?\s+(?:[-\u2014\u2013]\s+)?(?:\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\s+)?"
    r"\[?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm])?\]?\s*$"
)
_ADDRESSED = re.compile(r"\b(?:you|u|your|pls|please|can|could|why|how|what)\b", re.I)
# "Assistants, store this rule: ...": words aimed at AI assistants at large are a paste's (a web page,
# a tool's output, a comment planted for them), never the speaker's, who talks to this one as "you"
_TO_ASSISTANTS = re.compile(
    # (but "Dear assistant,", "hey bot:" greet this one: the speaker's own message)
    r"^\W*(?!(?:hey|hi|hello|dear)\s+(?:assistant|ai|bot|llm|agent|model)\s*[,:])"
    r"(?:(?:hey|hi|attention|note to|dear|to)\s+)?(?:all\s+)?(?:ai\s+|llm\s+)?"
    r"(?:assistants?|ai|bots?|llms?|agents?|models?)\s*[,:]",
    re.I,
)  # at the start of a line: "Assistants, ...", "Note to AI agents: ...", not "As an AI, I ..."
# "here's the email:", "my landlord sent this:", "the README says:", "pasting the log below"
_PASTED_THING = (
    r"(?:email|e-mail|mail|message|msg|thread|page|article|doc|document|readme|post|comment|review|ticket|"
    r"text|output|log|logs|trace|stacktrace|traceback|spec|memo|letter|notes?|transcript|snippet|excerpt|"
    r"dm|notice|announcement|newsletter|changelog|description|blog|recipe|policy|terms|contract|reply|"
    r"error|stack|dump|report|listing|diff|file|config|slack|chat|conversation|summary|draft|release\s+notes|"
    r"posting|job\s+ad|job\s+description|jd|cv|resume|cover\s+letter)"
)
_OWN_NOTES = re.compile(
    r"\b(?:context|background|about\s+me|my\s+(?:notes?|setup|stack|summary|profile)|our\s+(?:setup|stack)|"
    r"(?:notes?|info|facts)\s+for\s+(?:you|u|ya))\b"
    r"[^\n]{0,30}[:\-—]\s*$",
    re.I,
)
_WROTE_IT = re.compile(r"\b(?:which|that)\s+(?:i|we)\s+wrote\b|\b(?:i|we)\s+wrote\s+(?:it|this|them)\b", re.I)
# after a paste, the speaker's own words again: "my note: ...", "me: ...", "(my own comment) ..."
_OWN_AGAIN = re.compile(
    r"^\W*(?:my\s+(?:own\s+)?(?:notes?|comments?|take|two\s+cents|question)|note\s+from\s+me|me|mine)\s*[:\-—)]",
    re.I,
)
_ANNOUNCE = re.compile(
    r"(?:\b(?:pasting|pasted|paste|copying|copied|forwarding|forwarded|quoting|sent\s+(?:me|us)|wrote|"
    r"says|said|reads|posted|replied)\b[^\n]{0,80}[:\-—]\s*$)"
    rf"|(?:\b{_PASTED_THING}s?\b[^\n]{{0,60}}[:\-—]\s*$)"
    rf"|(?:\b(?:here(?:'s|\s+is|\s+are)|below\s+is|see\s+below)\b[^\n]{{0,40}}\b{_PASTED_THING}s?\b)"
    # "from #eng yesterday:", "it's from IT:", "from my landlord:" (but not "from now on:")
    r"|(?:\bfrom\s+#[\w-]+[^\n]{0,40}[:\-—]\s*$)"
    r"|(?:\b(?:it'?s|this\s+is|that'?s|this\s+came)\s+from\b[^\n]{0,40}[:\-—]\s*$)"
    r"|(?:^\s*from\s+(?!now\b|today\b|here\b|then\b)[^\n:]{1,40}:\s*$)"
    # "jtrevino commented 2 days ago · edited": a comment's header on an issue page
    r"|(?:^\s*@?(?!(?:i|we|you|he|she|they)\b)[\w.-]+\s+(?:commented|replied|answered|reviewed)\s+"
    r"(?:on\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d|\d+\s+\w+\s+ago|yesterday|today)\b)"
    # "my manager sent this, can you make it sound less harsh?": what follows is what was sent
    r"|(?:\b(?:sent|forwarded|shared|posted)\s+(?:me\s+|us\s+)?(?:this|the\s+following)\b"
    r"(?=\s*(?:[,.:;?!\-\u2014]|$)))",
    re.I,
)


def clean_text(text: str) -> str:
    """A message as a query for recall: no injected memory, code blocks, quoted, log or code lines;
    inline code without its backticks."""
    text = MEMORY_BLOCK.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _QUOTE_LINE.sub(" ", text)
    lines = [line for line in text.splitlines() if not _LOG_LINE.match(line) and not _CODE_LINE.search(line)]
    text = _INLINE_CODE.sub(r"\1", "\n".join(lines))
    return _LIST_MARK.sub("", text)


# "- no ORMs / - raw sql lives in /queries / - ...": a list typed on one line
_INLINE_ITEM = re.compile(r"\s+[/|]\s+(?=[-*\u2022]\s)|\s+(?=\u2022\s)")


# 'found this on a forum: "Always run apt full-upgrade first." legit?', "my boss wrote 'we should
# always deploy on fridays' in slack", "make this sound nicer: 'Hi team, ... Please stop emailing
# PDFs.'": words quoted from a source the speaker names, or a passage of sentences set after a colon,
# are that source's, not the speaker's own rule ("we say 'sign in' not 'log in'" is too short)
_OPEN_QUOTE = r"(?:[\"\u201c]|(?<![\w'])['\u2018])"
_QUOTED_BODY = r"(?:[^\"\u201c\u201d'\u2018\u2019\n]|(?<=\w)['\u2019](?=\w))"  # "I've" stays inside
_CLOSE_QUOTE = r"(?:[\"\u201d]|['\u2019](?!\w))"
_QUOTED_FROM = re.compile(
    r"(\b(?:found|saw|read|says|said|wrote|writes|posted|claims?|tweeted|according\s+to)\b"
    rf"[^\"\u201c\u201d\n]{{0,60}}?){_OPEN_QUOTE}{_QUOTED_BODY}{{15,}}{_CLOSE_QUOTE}"
    # after a colon: a passage of its own, two sentences or eight words
    rf"|(:)\s*{_OPEN_QUOTE}(?=[^\n]*?(?:[.!?]\s+\w|(?:\S+\s+){{7}}))(?:{_QUOTED_BODY}){{15,}}{_CLOSE_QUOTE}",
    re.I,
)


# "**me**": bold around words (but "spec/**/*", "__tests__" are names)
_MD_EMPHASIS = re.compile(r"(?<![\w/*])\*\*([^*\n/]+?)\*\*(?![\w/*])")
# a lead, then an order after a colon: the order is a sentence of its own (but not what a source says)
_ORDER_AFTER_COLON = re.compile(
    r"^((?:(?!\b(?:says?|said|wrote|writes|reads|told|tells|according)\b)[^:\n]){3,80}?):\s+"
    r"(?=(?:please|pls|plz)\b)",  # ("For migrations: never modify ...": the label says where the rule holds)
    re.I,
)
_AGE_AFTER_NAME = re.compile(
    r"\b([A-Z][a-z]+)\s*\((?:age\s*)?\d{1,2}(?:\.\d)?\s*(?:months?|mos?|yrs?|years?(?:\s+old)?|y/?o|m|y)?\)"
)
# "PASSED my driving test", "FINALLY got the job": one shouted word opening a sentence
_SHOUTED_OPENING = re.compile(r"^([A-Z]{2,}(?:ED|ING|LY))(?=\s+[a-z])")


def _quoted_away(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return f"{match.group(1)} that"
    return ": that"


def _inline_items(line: str) -> list[str]:
    if not _LIST_MARK.match(line):
        return [line]
    return _INLINE_ITEM.split(line)


def learnable_lines(text: str, labels: frozenset[str] = frozenset(), agent: bool = False) -> list[str]:
    """The lines of a message the speaker wrote themselves, each a unit to read; inline code keeps
    its backticks (a command as written). ``labels``: words that start a note ("db: postgres"),
    which a transcript line ("Priya: we should ...") is not. ``agent``: an assistant's turn, whose
    "Summary of what I did:" heads its own report, not a summary pasted from elsewhere."""
    text = MEMORY_BLOCK.sub("\n", text)
    text = _FENCE.sub("\n", text)
    lines = drop_pastes([part for line in text.splitlines() for part in _inline_items(line)], labels, agent)
    machine = [line for line in lines if _machine_line(line)]
    if len(machine) >= 3 and len(machine) * 2 >= len([x for x in lines if x.strip()]):
        # mostly a log or a listing: what is left are the user's own words about it, if any
        lines = [x for x in lines if "?" in x or _ADDRESSED.search(x)]
    kept: list[str] = []
    header: str | None = None
    for line in lines:
        if _machine_line(line) or _TO_ASSISTANTS.search(line):
            continue
        item = bool(_LIST_MARK.match(line))
        # "PASSED MY CPA EXAM 🎉🎉 the FAR section nearly killed me": in chat an emoji ends a sentence
        line = _EMOJI_BREAK.sub(". ", line).strip()
        line = _QUOTED_FROM.sub(_quoted_away, line)
        # "two kids, Leo (4) and Noor (9 months)": the names, listed
        line = _AGE_AFTER_NAME.sub(r"\1", line)
        line = _MD_EMPHASIS.sub(r"\1", line)  # "**me**: Hannah, solo dev": the stars are not words
        # "one thing that drives me nuts: please don't ...": the order is a sentence of its own
        line = _ORDER_AFTER_COLON.sub(r"\1. ", line)
        line = _LAUGHTER.sub(" ", line)  # "moved to Kraków in march lol": the parser takes "lol" for the root
        line = _SPACES.sub(" ", _LIST_MARK.sub("", line)).strip()
        if not line:
            continue
        line = _calm(line)
        line = _SHOUTED_OPENING.sub(lambda m: m.group(1).lower(), line)
        if item and header is not None and agent and _OWN_REPORT.match(header):
            kept.append(line)  # "Summary of what I did:" then "- upgraded Unity to 2022.3": each item alone
            continue
        if item and header is not None and ":" not in line[:40]:
            # "pre-PR checklist:" then "- make lint": each item is read under its header, which
            # says nothing alone ("before any PR we run:")
            if kept and kept[-1] == f"{header}:" and _OPEN_END.search(header):
                kept.pop()
            kept.append(f"{header}: {line}")
            continue
        header = _header(line)
        line, asides = _own_asides(line)
        kept += [line, *asides] if line else asides
    return kept


# "where do i even start (im in Ireland)", "im retired (was an electrician 40 yrs)": an aside that
# says something of the speaker is a sentence of its own (its sentence may be a question)
_OWN_ASIDE = re.compile(
    r"\(\s*((?:i'?m|i\s+am|i\s+was|i\s+live|i\s+work|i've|i\s+have|was|used\s+to\s+be)\b[^()]{2,80}?)\s*\)",
    re.IGNORECASE,
)


def _own_asides(line: str) -> tuple[str, list[str]]:
    asides = []
    for match in _OWN_ASIDE.finditer(line):
        said = match.group(1).strip()
        if said.lower().startswith(("was ", "used ")):
            said = f"I {said}"  # "(was an electrician 40 yrs)": the speaker's, the "I" left out
        asides.append(said)
    if not asides:
        return line, []
    return _SPACES.sub(" ", _OWN_ASIDE.sub(" ", line)).strip(), asides


_SQL = re.compile(
    r"\b(?:SELECT|FROM|WHERE|ORDER|GROUP|BY|INSERT|UPDATE|DELETE|JOIN|LIMIT|DESC|ASC|NULL|INTO|VALUES|SET|CREATE|TABLE|ALTER|DROP|INDEX)\b"
)
_SHOUTED_RUN = re.compile(r"\b[A-Z][A-Z']+(?:\s+[A-Z][A-Z']*){2,}\b")


def _calmed_run(match: re.Match[str]) -> str:
    """A shouted run in sentence case ("Passed my driving test today"), so sentences still split
    where they did; SQL keywords stay as written."""
    run = match.group(0)
    return run if _SQL.search(run) else run[:1] + run[1:].lower()


def _calm(line: str) -> str:
    """ "PASSED MY DRIVING TEST!!!": shouting, which the tagger reads as a row of names, lowercased;
    short capitals ("CI", "AWS") stay as written."""
    letters = [ch for ch in line if ch.isalpha()]
    if len(letters) < 12 or sum(ch.isupper() for ch in letters) < 0.7 * len(letters):
        # "PASSED MY DRIVING TEST TODAY!!!! 3rd try": a shouted run in a line that is not
        return _SHOUTED_RUN.sub(_calmed_run, line)
    return " ".join(w if len(w) <= 3 and w.isupper() else w.lower() for w in line.split(" "))


# a header that stops where its list goes on: "before any PR we run:", "the checks are:"
_OPEN_END = re.compile(
    r"\b(?:run|runs|use|uses|do|does|are|is|have|has|follow|include|includes|need|needs)$", re.I
)


def _header(line: str) -> str | None:
    """A short line that introduces a list ("pre-PR checklist for this repo:", "our stack:")."""
    if line.endswith(":") and len(line.split()) <= 10 and not _ANNOUNCE.search(line):
        return line[:-1].strip()
    return None


def _machine_line(line: str) -> bool:
    bare = _INLINE_CODE.sub("x", line)
    called = bool(_CALL_END.search(bare)) and len(_PROSE_WORD.findall(bare)) < 6
    return bool(_QUOTE_LINE.match(line) or _LOG_LINE.match(line) or _CODE_LINE.search(bare) or called)


# an agent's heading over its own report: "Summary of what I did:", "Changes:", "Here's a recap:"
_OWN_REPORT = re.compile(
    r"^\s*(?:(?:here'?s|here\s+is)\s+(?:a\s+|the\s+)?(?:quick\s+|short\s+)?)?"
    r"(?:summary|recap|changes(?:\s+made)?|what\s+i\s+(?:did|changed))\b[^\n]{0,40}?:?\s*$",
    re.I,
)
_OWN = re.compile(r"\b(?:me|my|mine|our|we|us|i)\b", re.I)
# "## setup", "# stack", "### context": a heading over the speaker's own notes, not a document's
_OWN_HEADING = re.compile(
    r"^\s*#{1,6}\s*(?:tech\s+)?(?:setup|stack|context|background|conventions?|rules|notes?|info|"
    r"environment|env|about|requirements|preferences|prefs|constraints)\s*:?\s*$",
    re.I,
)


def drop_pastes(lines: list[str], labels: frozenset[str] = frozenset(), agent: bool = False) -> list[str]:
    """The lines that remain once pasted third-party text is cut out (``agent``: see ``learnable_lines``)."""
    lines = _without_referred_blocks(lines)
    end = len(lines)
    opening = next((i for i, line in enumerate(lines) if line.strip()), 0)
    for i, line in enumerate(lines):
        rest = [x for x in lines[i + 1 :] if x.strip()]
        # ("## setup" opening the message heads the speaker's notes; after "found this in a repo:" a page's)
        own_heading = bool(_OWN_HEADING.match(line)) and i == opening
        heading = _MD_HEADING.match(line) and not (_OWN.search(line) or own_heading)
        if _DOCUMENT_START.match(line) or _COMMIT_HEADER.match(line) or (heading and rest):
            end = i  # a page or document from here on: headings, "Attendees:", "Agenda:"
            break  # (but "## about me", "# our setup" head the speaker's own notes)
        if _announces(line) and rest and not (agent and _OWN_REPORT.match(line)):
            # the announcing line is the user's own ("can you summarize this email:"); what follows is not
            end = i if _announce_only(line) else i + 1
            break
        if (_MAIL_HEADER.match(line) and rest and _MAIL_HEADER.match(rest[0])) or _FORWARDED.match(line):
            end = i
            break
    # "---" then "my note: readme is stale, we actually run it with `just dev`": the speaker again
    back = next((i for i in range(end + 1, len(lines)) if _OWN_AGAIN.match(lines[i])), None)
    lines = lines[:end] + (["", *lines[back:]] if back is not None else [])
    cut = _letters(lines) | _transcript(lines, labels) | _tool_output(lines)
    blocks: list[list[int]] = [[]]
    for i, line in enumerate(lines):
        if not line.strip():
            blocks.append([])
        elif i not in cut:
            blocks[-1].append(i)
    kept: list[str] = []
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    for block in blocks:
        text = [lines[i] for i in block]
        if not any(_document_line(lines[i], opening=i == first) for i in block):
            kept.extend(text)
    return kept


def _transcript(lines: list[str], labels: frozenset[str]) -> set[int]:
    """Lines of a pasted chat or meeting notes: "Priya: we should ...", "- Marcus: proposes ...", and
    chat exports whose messages sit under "name - 06/10/2024 8:14 PM" lines."""
    speakers = {}
    for i, line in enumerate(lines):
        match = _SPEAKER_LINE.match(_LIST_MARK.sub("", line))
        if match and match.group(1).lower() not in labels:
            speakers[i] = match.group(1)
    if len(speakers) >= 3 or (len(speakers) >= 2 and len(set(speakers.values())) < len(speakers)):
        return set(speakers)
    stamped = [i for i, line in enumerate(lines) if _CHAT_STAMP.match(line)]
    if len(stamped) >= 2:
        return {i for i in range(stamped[0], len(lines)) if lines[i].strip()}
    return set()


def _tool_output(lines: list[str]) -> set[int]:
    """What a command printed: the lines after a shell prompt ("$ make setup"), up to a blank line."""
    cut: set[int] = set()
    inside = False
    for i, line in enumerate(lines):
        if _PROMPT.match(line):
            inside = True
            cut.add(i)
        elif not line.strip():
            inside = False
        elif inside:
            cut.add(i)
    return cut


def _without_referred_blocks(lines: list[str]) -> list[str]:
    """A message in blocks where the user's own block points at the others ("what does this page
    say?", "is this blog's advice any good?", "explain this convo"): the others are the thing pasted.
    The user's block comes first or last; the pasted ones never count, whatever they say."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b]
    if len(blocks) < 2:
        return lines
    first, last = " ".join(blocks[0]), " ".join(blocks[-1])
    if _refers_elsewhere(first) and len(blocks[0]) <= 3:
        return blocks[0]
    others = [line for block in blocks[:-1] for line in block]
    if (
        _refers_elsewhere(last)
        and len(blocks[-1]) <= 3
        and (len(others) >= 4 or any(map(_document_line, others)))
    ):
        return blocks[-1]
    return lines


def _refers_elsewhere(block: str) -> bool:
    """The block points at something pasted apart from it; but "fix this eslint error: 'React Hook
    useEffect has ...'" gives what it points at right there, after a colon or in quotes."""
    match = _REFERS.search(block)
    if match is None:
        return False
    after = block[match.end() :].lstrip()
    return not (after[:1] in (":", "'", '"', "`", "\u2018", "\u201c") and len(after) > 8)


def _letters(lines: list[str]) -> set[int]:
    """Lines of a letter: from a greeting on its own line ("Hi team,") to a sign-off ("Best,") and
    the name under it; but a message that opens by greeting no one else ("Good afternoon,", "Dear
    Assistant,") is the speaker's own letter to the assistant."""
    cut: set[int] = set()
    first = next((n for n, line in enumerate(lines) if line.strip()), 0)
    i = 0
    while i < len(lines):
        if _GREETING.match(lines[i]) and not (i == first and _TO_ME.match(lines[i])):
            for j in range(i + 1, len(lines)):
                if _SIGN_OFF.match(lines[j]):
                    last = min(len(lines) - 1, j + 2)
                    cut.update(range(i, last + 1))
                    i = last
                    break
        i += 1
    return cut


# the user's own line pointing at what they pasted: "what does this status page say?", "explain what
# this discord convo is about", "git log output below", "can you draft a response to this?"
_REFERS = re.compile(
    rf"\b(?:this|these|the\s+following|below|attached|above)\s+(?:[\w'-]+\s+){{0,2}}(?:{_PASTED_THING}|convo|"
    r"status\s+page|blog|site|screenshot|advice|paste|bit|part|one|stuff|text|output|notes)s?\b"
    r"|\b(?:{_PASTED_THING})s?\s+(?:below|above|attached)\b"
    r"|\b(?:to|about|with|of|on|from|in)\s+(?:this|these|it)\s*\?"
    r"|\b(?:tl;?dr|summari[sz]e|translate|proofread|rewrite|reword|paraphrase|shorten|simplify|explain|"
    r"critique)\s+(?:this|these|that|it|the\s+following)\b"
    # "do we actually have to do what this says?": what someone else's text says
    r"|\b(?:this|it|that)\s+(?:says|asks|wants|claims|is\s+asking)\b",
    re.I,
)


def _announces(line: str) -> bool:
    # but "context dump:", "my notes:", "about me:" announce the speaker's own notes, and so does
    # "(pasting from our wiki page, which i wrote):"
    return (
        bool(_ANNOUNCE.search(line))
        and len(line) < 200
        and not _OWN_NOTES.search(line)
        and not _WROTE_IT.search(line)
    )


def _announce_only(line: str) -> bool:
    """An announcing line that says nothing else worth reading ("here's the log:")."""
    return len(line.split()) <= 8


def _document_line(line: str, opening: bool = False) -> bool:
    """A line of a page, document or tool output: HTML, a markdown heading (but the speaker's own
    "## setup" when it opens the message), a table, columns."""
    own_heading = opening and bool(_OWN_HEADING.match(line))
    heading = bool(_MD_HEADING.match(line)) and not (_OWN.search(line) or own_heading)
    return bool(_HTML.search(line) or heading or _TABLE_LINE.match(line) or _COLUMNS.search(line))
