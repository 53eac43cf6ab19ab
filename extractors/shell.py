"""Shell commands inside prose: "run `pnpm lint --fix` before you push", "tests: tox -e py312".

Which programs exist, and what some of them are for, is data (``patterns/commands.jsonl``). A
command is the program and the arguments after it, up to the first word that is prose again
("before", "to", "and"...). The text inside backticks is a command as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from extractors.data import load
from extractors.shell_words import PROSE, PURPOSE_ALIASES, command_like

_ARG = re.compile(r"""^(?:-{1,2}[\w][\w.-]*(?:=\S+)?|[\w./:@=+%*,~^\[\]{}!-]+|'[^']*'|"[^"]*")$""")
_PATH_PROGRAM = re.compile(r"^(?:\./|\.\./|bin/|scripts?/|tools/|~/)[\w./-]+$|^[\w-]+\.(?:sh|py|ps1|bash)$")
_BARE_NAME = re.compile(r"[a-z][a-z0-9_-]{2,30}")
_FLAG = re.compile(r"--?[a-z][\w-]*(?:=\S+)?")
_WORDS = re.compile(r"""'[^']*'|"[^"]*"|\S+""")
_BACKTICKS = re.compile(r"`([^`\n]{1,200})`")
_QUOTED = re.compile(r"""(?:(?<=\s)|^)(['"])([^'"\n]{2,200})\1(?=[\s,.;:!?)]|$)""")


class Program(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    exe: str
    purpose: str | None = None
    needs_argument: bool = False
    subcommands: list[str] = []
    # words that read as prose but are this program's own ("docker compose ... up", "tilt up")
    verbs: list[str] = []
    # what a word names when this program runs it: "docker compose up" starts the dev stack
    purposes: dict[str, str] = {}


@dataclass(frozen=True, slots=True)
class Command:
    start: int  # character offsets in the text searched
    end: int
    text: str
    arguments: int
    quoted: bool  # written in backticks
    purpose: str | None
    # a program it runs: "`pnpm lint`", "`./deploy.sh`"; not "`test_refund_idempotency`", "`foo.ts`"
    runs_a_program: bool = True


class Shell:
    def __init__(self, programs: list[Program], known_words: frozenset[str] = frozenset()) -> None:
        self.programs = {p.exe: p for p in programs}
        # words of ordinary English: "composer phpcs" is a command, "composer recently" is not
        self.known_words = known_words

    def runs(self, command: Command) -> bool:
        """Whether a command starts with a program we know or a path to one (`fetchUsr` does not)."""
        words = command.text.split()
        return bool(words) and (
            words[0] in self.programs
            or bool(_PATH_PROGRAM.match(words[0]))
            or (len(words) > 1 and self._flagged_unknown(words[0], words[1]))
        )

    def find(self, text: str) -> list[Command]:
        """Commands in ``text``: backticked spans first, then programs followed by arguments."""
        found: list[Command] = []
        taken: list[tuple[int, int]] = []
        for match in _BACKTICKS.finditer(text):
            inner = match.group(1).strip()
            if inner:
                parts = inner.split()
                runs = len(parts) > 1 or self._program(parts[0]) is not None
                found.append(
                    Command(
                        match.start(1), match.end(1), inner, len(parts) - 1, True, self._purpose(parts), runs
                    )
                )
                taken.append((match.start(), match.end()))
        found += self._quoted(text, taken)
        words = [(m.start(), m.end(), m.group(0)) for m in _WORDS.finditer(text)]
        i = 0
        while i < len(words):
            start, _, word = words[i]
            if any(a <= start < b for a, b in taken):
                i += 1
                continue
            program = self._program(word)
            if program is None and i + 1 < len(words) and self._flagged_unknown(word, words[i + 1][2]):
                program = Program(exe=word)  # "snakemake --cores 8": a program the data lacks, and its flag
            after_article = i > 0 and words[i - 1][2].lower() in (
                "the",
                "a",
                "an",
                "our",
                "this",
                "that",
                "my",
                "their",  # "still figuring out their airflow setup" (not "its": chat's "it's")
                "your",
                "his",
                "her",
            )
            # "they make refactors painful": a verb after its subject, not a program run
            after_subject = (
                i > 0
                and words[i - 1][2].lower().strip("([{\"'") in _SUBJECTS
                and word.lower() in self.known_words
            )
            if program is None or ((after_article or after_subject) and not word.startswith(("./", "../"))):
                i += 1  # "that's the pre-commit ritual": a noun after its article, not a program run
                continue
            args: list[tuple[int, int, str]] = []
            j = i + 1
            # "mongodb atlas, deploy on render": punctuation right after the program ends it
            ends = word.rstrip(".,;:!?)") != word
            told = False  # the words after it say what it does: "npm test starts watch mode"
            while not ends and j < len(words) and len(args) < 10:
                raw = words[j][2]
                bare = raw if raw.endswith("/...") else raw.rstrip(".,;:!?)")
                if raw in (".", "..") and j + 1 < len(words) and words[j + 1][2].startswith("-"):
                    bare = raw  # "conan install . --build=missing": the current folder, then flags
                prose = bare.lower() in PROSE and bare.lower() not in program.verbs
                if not bare or prose or not _ARG.match(bare) or bare in ("/", "=", "+"):
                    break  # ("pio run -t upload / serial: ...", "detekt + ktlint": items of a list)
                if (
                    args
                    and not args[-1][2].startswith("-")  # ("-D warnings": a flag's value)
                    and self._tells(bare)
                    and self._prose_follows(words[j + 1 : j + 3])
                ):
                    told = True
                    break  # "npm test starts watch mode": the command, then what it does
                args.append((words[j][0], words[j][0] + len(bare), bare))
                if bare != raw:
                    break  # punctuation after it ends the command
                j += 1
            if told and word.lower() in self.known_words:
                i += 1  # "bundle size matters a bit": English, not `bundle size`
                continue
            if not self._fits(program, word, args) or (word.startswith("(") and not args):
                i += 1  # ("(jest was way too slow)": a product named in an aside, not a command)
                continue
            end = args[-1][1] if args else words[i][0] + len(word.rstrip(".,;:!?)"))
            start += len(word) - len(word.lstrip("("))  # "(npm test)": the command, not its bracket
            command_text = text[start:end]
            tokens = [word.strip("(").rstrip(".,;:!?)"), *(a[2] for a in args)]
            found.append(Command(start, end, command_text, len(args), False, self._purpose(tokens)))
            i = j if args else i + 1
        return sorted(found, key=lambda c: c.start)

    def _quoted(self, text: str, taken: list[tuple[int, int]]) -> list[Command]:
        """ "you must do first 'docker compose up -d db'": a command in quotes, when a program opens it
        and its arguments fit (``taken``: spans already read, extended)."""
        found: list[Command] = []
        for match in _QUOTED.finditer(text):
            inner = match.group(2).strip()
            parts = inner.split()
            program = self._program(parts[0]) if len(parts) > 1 else None
            if (
                program is not None
                and self._fits(program, parts[0], [(0, 0, part) for part in parts[1:]])
                and not any(a <= match.start() < b for a, b in taken)
            ):
                found.append(
                    Command(match.start(2), match.end(2), inner, len(parts) - 1, True, self._purpose(parts))
                )
                taken.append((match.start(), match.end()))
        return found

    def _program(self, word: str) -> Program | None:
        bare = word.rstrip(".,;:!?)").lstrip("(")
        if bare in self.programs:
            return self.programs[bare]
        if bare.lower() in self.programs and bare.lower() == bare:
            return self.programs[bare.lower()]
        if _PATH_PROGRAM.match(bare):
            return Program(exe=bare)
        return None

    def _flagged_unknown(self, word: str, after: str) -> bool:
        """A lowercase coined word with a flag after it ("snakemake -n", "zola serve" is not)."""
        return (
            bool(self.known_words)
            and bool(_BARE_NAME.fullmatch(word))
            and word not in self.known_words
            and bool(_FLAG.fullmatch(after.rstrip(".,;:!?)")))
        )

    def _command_like(self, word: str) -> bool:
        coined = bool(self.known_words) and word.isalpha() and word.islower() and word not in self.known_words
        return coined or command_like(word)

    def _fits(self, program: Program, word: str, args: list[tuple[int, int, str]]) -> bool:
        # "hugo server -D", "quarto render thesis/ --to pdf": a flag after the first word
        flagged = len(args) > 1 and any(a.startswith("-") for _, _, a in args[1:3])
        if args and self._program(args[0][2]) is not None and program.needs_argument:
            return True  # "pnpm turbo run lint", "yarn playwright test": a runner and the program it runs
        if (
            word.lower() in self.known_words
            and len(args) > 1
            and not any(self._command_like(a) for _, _, a in args)
        ):
            return False  # "tap dance isnt registering half": a word of English and more words
        if (
            program.needs_argument
            and args
            and not self._command_like(args[0][2])
            and args[0][2] not in program.subcommands
            and not flagged
        ):
            return False  # "yarn recently", "make sure", "go home": a word after a name, not a subcommand
        if (
            args
            and program.exe in self.programs  # ("./scripts/deploy.sh prod": a script's own words)
            and not program.needs_argument
            and not program.subcommands
            and self._english(args[0][2])
            and args[0][2] not in program.verbs
            and not flagged
        ):
            return False  # "the web build is black screen", "mypy together": a name in a sentence
        if word[:1].isupper() and program.needs_argument:
            return False  # "Make sure", "Go ahead": a capitalised verb, not a program
        if args and re.match(r"^v?\d+(?:\.\d+)*$", args[0][2]):
            return False  # "rails 7", "node 20": a product and its version
        if args and not program.needs_argument and not program.subcommands and self._tells(args[0][2]):
            return False  # "plain pytest misses the db fixtures", "jest hangs": the program does something
        if program.needs_argument and not args:
            return False
        return not (program.subcommands and (not args or args[0][2] not in program.subcommands))

    def _english(self, word: str) -> bool:
        """A plain word of English where an argument would be: no flag, path, digit or subcommand."""
        return (
            bool(self.known_words)
            and word.isalpha()
            and word.islower()
            and len(word) > 2  # ("rails s", "go x": a subcommand's short form)
            and (word in self.known_words or (word.endswith("s") and word[:-1] in self.known_words))
            and word not in _FOLDERS
            and not command_like(word)
        )

    def _prose_follows(self, words: list[tuple[int, int, str]]) -> bool:
        """Two words of plain English come next ("... starts watch mode"), not arguments."""
        return (
            len(words) == 2
            and words[0][2] not in _JOINING
            and all(w.isalpha() and w.islower() and w in self.known_words for _, _, w in words)
        )

    def _tells(self, word: str) -> bool:
        """A word of English in the third person ("misses", "hangs", "fails"): what a program does,
        said of it, not an argument given to it."""
        if not self.known_words or not word.isalpha() or not word.islower() or not word.endswith("s"):
            return False
        stem = word[:-2] if word.endswith("es") and word[:-2] in self.known_words else word[:-1]
        return word in self.known_words and stem in self.known_words and len(stem) >= 3

    def _purpose(self, words: list[str]) -> str | None:
        """What the command is for: its program's purpose, or the first argument that names one
        ("pnpm test", "npm run test:unit", "cargo clippy", "./scripts/deploy.sh")."""
        if not words:
            return None
        program = self.programs.get(words[0])
        for word in words[1:4]:
            name = word.lower().split(":")[0]
            name = re.sub(r"\.(?:sh|py|ps1|bash)$", "", name.rsplit("/", 1)[-1])
            if program is not None and name in program.purposes:
                return program.purposes[name]
            if name in PURPOSE_ALIASES:
                return PURPOSE_ALIASES[name]
            if name in self.programs and self.programs[name].purpose:
                return self.programs[name].purpose
        if program is not None and program.purpose:
            return program.purpose
        if _PATH_PROGRAM.match(words[0]):
            name = re.sub(r"\.(?:sh|py|ps1|bash)$", "", words[0].rsplit("/", 1)[-1].lower())
            return PURPOSE_ALIASES.get(name)
        return None


# folders commands are pointed at that are also English words ("mypy src", "black app")
_FOLDERS = frozenset(
    {"src", "app", "apps", "lib", "libs", "pkg", "cmd", "internal", "source", "server", "client"}
)

# words that join what follows to the command ("clippy + tests before pushing"), not prose after it
_JOINING = frozenset(
    {
        "before",
        "after",
        "on",
        "in",
        "for",
        "to",
        "and",
        "or",
        "when",
        "if",
        "with",
        "from",
        "at",
        "by",
        "until",
        "then",
        "first",
        "once",
    }
)


_SUBJECTS = frozenset({"i", "we", "they", "you", "he", "she", "it", "u"})


def load_shell(path: Path | None = None, known_words: frozenset[str] = frozenset()) -> Shell:
    return Shell([program for _, program in load("commands.jsonl", Program, path)], known_words)
