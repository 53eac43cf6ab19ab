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

# Words that end a command written in prose, and first words that show the program name was a verb.
_PROSE = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "before",
        "after",
        "when",
        "whenever",
        "if",
        "and",
        "then",
        "so",
        "or",
        "for",
        "first",
        "instead",
        "on",
        "in",
        "at",
        "every",
        "each",
        "please",
        "locally",
        "prior",
        "as",
        "because",
        "since",
        "otherwise",
        "but",
        "which",
        "that",
        "it",
        "is",
        "are",
        "was",
        "be",
        "this",
        "these",
        "those",
        "with",
        "without",
        "from",
        "by",
        "via",
        "not",
        "never",
        "always",
        "just",
        "also",
        "only",
        "once",
        "twice",
        "again",
        "now",
        "here",
        "there",
        "sure",
        "sense",
        "certain",
        "you",
        "we",
        "i",
        "they",
        "he",
        "she",
        "my",
        "our",
        "your",
        "their",
        "its",
        "me",
        "us",
        "them",
        "of",
        "do",
        "does",
        "did",
        "can",
        "will",
        "would",
        "should",
        "could",
        "might",
        "must",
        "has",
        "have",
        "had",
        "her",
        "him",
        "them",
        "it",
        "me",
        "us",
        "your",
        "his",
        "up",
        "down",
        "out",
        "off",
        "over",
        "last",
        "next",
        "week",
        "month",
        "year",
        "ago",
        "today",
        "yesterday",
        "tomorrow",
        "instead",
        "too",
        "either",
        "though",
        "there",
        "everywhere",
        "anyway",
        "these",
        "days",
        "since",
        "like",
        "across",
        "all",
        "everything",
        "mostly",
        "again",
        "already",
        "ever",
    ]
)
_ARG = re.compile(r"""^(?:-{1,2}[\w][\w.-]*(?:=\S+)?|[\w./:@=+%*,~^\[\]{}-]+|'[^']*'|"[^"]*")$""")
_PATH_PROGRAM = re.compile(r"^(?:\./|\.\./|bin/|scripts?/|tools/|~/)[\w./-]+$|^[\w-]+\.(?:sh|py|ps1|bash)$")
_WORDS = re.compile(r"""'[^']*'|"[^"]*"|\S+""")
_BACKTICKS = re.compile(r"`([^`\n]{1,200})`")
_PURPOSE_ALIASES = {
    "tests": "test",
    "testing": "test",
    "unit": "test",
    "spec": "test",
    "specs": "test",
    "fmt": "format",
    "formatting": "format",
    "prettier": "format",
    "linting": "lint",
    "eslint": "lint",
    "typecheck": "typecheck",
    "type-check": "typecheck",
    "types": "typecheck",
    "tsc": "typecheck",
    "check": "check",
    "ci": "check",
    "verify": "check",
    "validate": "check",
    "deploy": "deploy",
    "release": "deploy",
    "publish": "deploy",
    "up": "deploy",
    "apply": "deploy",
    "build": "build",
    "compile": "build",
    "bundle": "build",
    "dev": "dev",
    "start": "dev",
    "serve": "dev",
    "watch": "dev",
    "e2e": "e2e",
    "migrate": "migrate",
    "migration": "migrate",
    "migrations": "migrate",
    "db:migrate": "migrate",
    "seed": "seed",
    "install": "install",
    "setup": "install",
    "bootstrap": "install",
    "bench": "bench",
    "benchmark": "bench",
    "codegen": "codegen",
    "generate": "codegen",
    "gen": "codegen",
    "test": "test",
    "lint": "lint",
    "format": "format",
}


class Program(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    exe: str
    purpose: str | None = None
    needs_argument: bool = False
    subcommands: list[str] = []


@dataclass(frozen=True, slots=True)
class Command:
    start: int  # character offsets in the text searched
    end: int
    text: str
    arguments: int
    quoted: bool  # written in backticks
    purpose: str | None


class Shell:
    def __init__(self, programs: list[Program], known_words: frozenset[str] = frozenset()) -> None:
        self.programs = {p.exe: p for p in programs}
        # words of ordinary English: "composer phpcs" is a command, "composer recently" is not
        self.known_words = known_words

    def find(self, text: str) -> list[Command]:
        """Commands in ``text``: backticked spans first, then programs followed by arguments."""
        found: list[Command] = []
        taken: list[tuple[int, int]] = []
        for match in _BACKTICKS.finditer(text):
            inner = match.group(1).strip()
            if inner:
                parts = inner.split()
                found.append(
                    Command(match.start(1), match.end(1), inner, len(parts) - 1, True, self._purpose(parts))
                )
                taken.append((match.start(), match.end()))
        words = [(m.start(), m.end(), m.group(0)) for m in _WORDS.finditer(text)]
        i = 0
        while i < len(words):
            start, _, word = words[i]
            if any(a <= start < b for a, b in taken):
                i += 1
                continue
            program = self._program(word)
            if program is None:
                i += 1
                continue
            args: list[tuple[int, int, str]] = []
            j = i + 1
            # "mongodb atlas, deploy on render": punctuation right after the program ends it
            ends = word.rstrip(".,;:!?)") != word
            while not ends and j < len(words) and len(args) < 10:
                raw = words[j][2]
                bare = raw if raw.endswith("/...") else raw.rstrip(".,;:!?)")
                if not bare or bare.lower() in _PROSE or not _ARG.match(bare):
                    break
                args.append((words[j][0], words[j][0] + len(bare), bare))
                if bare != raw:
                    break  # punctuation after it ends the command
                j += 1
            if not self._fits(program, word, args):
                i += 1
                continue
            end = args[-1][1] if args else words[i][0] + len(word.rstrip(".,;:!?)"))
            command_text = text[start:end]
            tokens = [word.rstrip(".,;:!?)"), *(a[2] for a in args)]
            found.append(Command(start, end, command_text, len(args), False, self._purpose(tokens)))
            i = j if args else i + 1
        return sorted(found, key=lambda c: c.start)

    def _program(self, word: str) -> Program | None:
        bare = word.rstrip(".,;:!?)").lstrip("(")
        if bare in self.programs:
            return self.programs[bare]
        if bare.lower() in self.programs and bare.lower() == bare:
            return self.programs[bare.lower()]
        if _PATH_PROGRAM.match(bare):
            return Program(exe=bare)
        return None

    def _command_like(self, word: str) -> bool:
        coined = bool(self.known_words) and word.isalpha() and word.islower() and word not in self.known_words
        return coined or _command_like(word)

    def _fits(self, program: Program, word: str, args: list[tuple[int, int, str]]) -> bool:
        flagged = len(args) > 1 and args[1][2].startswith("-")  # "hugo server -D"
        if program.needs_argument and args and not self._command_like(args[0][2]) and not flagged:
            return False  # "yarn recently", "make sure", "go home": a word after a name, not a subcommand
        if word[:1].isupper() and program.needs_argument:
            return False  # "Make sure", "Go ahead": a capitalised verb, not a program
        if args and re.match(r"^v?\d+(?:\.\d+)*$", args[0][2]):
            return False  # "rails 7", "node 20": a product and its version
        if program.needs_argument and not args:
            return False
        return not (program.subcommands and (not args or args[0][2] not in program.subcommands))

    def _purpose(self, words: list[str]) -> str | None:
        """What the command is for: its program's purpose, or the first argument that names one
        ("pnpm test", "npm run test:unit", "cargo clippy", "./scripts/deploy.sh")."""
        if not words:
            return None
        program = self.programs.get(words[0])
        for word in words[1:4]:
            name = word.lower().split(":")[0]
            name = re.sub(r"\.(?:sh|py|ps1|bash)$", "", name.rsplit("/", 1)[-1])
            if name in _PURPOSE_ALIASES:
                return _PURPOSE_ALIASES[name]
            if name in self.programs and self.programs[name].purpose:
                return self.programs[name].purpose
        if program is not None and program.purpose:
            return program.purpose
        if _PATH_PROGRAM.match(words[0]):
            name = re.sub(r"\.(?:sh|py|ps1|bash)$", "", words[0].rsplit("/", 1)[-1].lower())
            return _PURPOSE_ALIASES.get(name)
        return None


# First words of subcommands; any other plain word after a program that is also a name ("yarn",
# "make", "go") leaves it a name.
_SUBCOMMANDS = frozenset(
    [
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "uninstall",
        "run",
        "test",
        "tests",
        "exec",
        "dlx",
        "x",
        "ci",
        "build",
        "dev",
        "start",
        "serve",
        "lint",
        "fmt",
        "format",
        "vet",
        "clippy",
        "check",
        "typecheck",
        "type-check",
        "deploy",
        "release",
        "publish",
        "migrate",
        "migration",
        "generate",
        "gen",
        "codegen",
        "clean",
        "init",
        "update",
        "upgrade",
        "up",
        "down",
        "audit",
        "why",
        "outdated",
        "link",
        "unlink",
        "workspace",
        "workspaces",
        "create",
        "new",
        "bench",
        "doc",
        "docs",
        "coverage",
        "watch",
        "compile",
        "bundle",
        "preview",
        "sync",
        "lock",
        "pip",
        "tool",
        "shell",
        "apply",
        "plan",
        "destroy",
        "validate",
        "get",
        "describe",
        "logs",
        "ps",
        "compose",
        "push",
        "pull",
        "tag",
        "commit",
        "checkout",
        "merge",
        "rebase",
        "status",
        "diff",
        "log",
        "show",
        "rollout",
        "scale",
        "delete",
        "verify",
        "package",
        "e2e",
        "seed",
        "setup",
        "bootstrap",
        "prepare",
        "help",
        "version",
        "all",
        "tidy",
        "mod",
        "fix",
        "pre-commit",
        "hooks",
    ]
)


def _command_like(word: str) -> bool:
    return (
        word.startswith("-")
        or any(ch in word for ch in "/.:=@_")
        or (word.startswith("+") and word[1:].isalnum())  # an Earthly target
        or any(ch.isdigit() for ch in word)
        or word.lower() in _SUBCOMMANDS
        or word.split(":")[0].lower() in _SUBCOMMANDS
    )


def load_shell(path: Path | None = None, known_words: frozenset[str] = frozenset()) -> Shell:
    return Shell([program for _, program in load("commands.jsonl", Program, path)], known_words)
