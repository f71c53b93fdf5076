"""operators.py: the mutation operators of `make mutation-score` (scripts/mutation_score.py). docs/teach/grader-checks-itself.md
"Mutation score: the mistakes nobody wrote".

The hand-written mutants (grader/mutants/) are the mistakes we thought of. These are the ones nobody thought
of: every small mechanical edit of one line of a stage's lesson code that a slip of the hand could make.
Each operator is a pure function from one line (split into code, string and comment) to the lines it can
become; nothing here builds or runs anything.

    operator             what it does to one line                         example
    relational           a comparison's boundary                          a < b       -> a <= b
    equality             == and != swapped                                a == b      -> a != b
    logical              && and || swapped                                a && b      -> a || b
    arithmetic           + and - swapped                                  now + lease -> now - lease
    negation             an if's or while's condition negated             if (x)      -> if (!(x))
    boundary             an integer literal one more, one less            batch, 1    -> batch, 2
    constant             an integer literal to 0 (or 0 to 1); true/false  return true -> return false
    statement-deletion   a statement (or a link of a call chain) deleted  .bind(2, x) -> (nothing)
    argument-swap        a call's two arguments swapped                   f(a, b)     -> f(b, a)
    sql-relational       in SQL: a comparison's boundary, = and <>        x <= ?1     -> x < ?1
    sql-logical          in SQL: AND and OR swapped                       a AND b     -> a OR b
    sql-clause           in SQL: one AND term, a LIMIT, a column of a     a AND b     -> a
                         UNIQUE or a key list deleted
    sql-literal          in SQL: a state literal for the other state      'completed' -> 'in_progress'

Python 3 standard library only.
"""
import hashlib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    path: str      # the file, from the repository's root: stages/4_two_phase/key_table.cc
    line: int      # 1-based
    operator: str  # a name from OPERATORS
    before: str    # the line as written
    after: str     # the line as mutated ("" for a deleted line)
    nth: int       # which identical (before, after) pair of this file it is, from 0: a stable identity

    @property
    def id(self):
        """Stable across edits elsewhere in the file: the path, the operator and the two texts, not the line."""
        text = "\0".join([self.path, self.operator, self.before.strip(), self.after.strip(), str(self.nth)])
        return "m-" + hashlib.sha1(text.encode()).hexdigest()[:10]

    def describe(self):
        after = self.after.strip() or "(deleted)"
        return f"{self.path}:{self.line} {self.operator}: `{self.before.strip()}` -> `{after}`"


# One line, split into pieces: ("code", text), ("string", text without its quotes) or ("comment", text).
# A raw string's lines (R"sql( ... )sql", the schemas) are "string" pieces; raw_open says whether the line
# starts inside one, and split() returns whether the next line does.
def split(line, raw_open):
    pieces, i, code_start = [], 0, 0
    if raw_open:
        end = line.find(')' + raw_open + '"')
        if end < 0:
            return [("string", line)], raw_open
        pieces.append(("string", line[:end]))
        i = code_start = end + len(raw_open) + 2
    while i < len(line):
        if line.startswith("//", i):
            pieces.append(("code", line[code_start:i]))
            pieces.append(("comment", line[i:]))
            return [p for p in pieces if p[1]], None
        raw = re.match(r'R"([^(\s]*)\(', line[i:])
        if raw:
            pieces.append(("code", line[code_start:i]))
            delimiter, start = raw.group(1), i + raw.end()
            end = line.find(')' + delimiter + '"', start)
            if end < 0:
                pieces.append(("string", line[start:]))
                return [p for p in pieces if p[1]], delimiter
            pieces.append(("string", line[start:end]))
            i = code_start = end + len(delimiter) + 2
            continue
        if line[i] in "\"'":
            quote, j = line[i], i + 1
            while j < len(line) and line[j] != quote:
                j += 2 if line[j] == "\\" else 1
            pieces.append(("code", line[code_start:i]))
            pieces.append(("string" if quote == '"' else "code", line[i + 1:j] if quote == '"' else line[i:j + 1]))
            i = code_start = j + 1
            continue
        i += 1
    pieces.append(("code", line[code_start:]))
    return [p for p in pieces if p[1]], None


SQL_WORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|WHERE|AND|OR|SET|VALUES|UNIQUE|LIMIT|CREATE)\b")


def is_sql(text):
    return bool(SQL_WORD.search(text))


INTEGER = r"(?<![\w.'?])\d+(?![\w.'])"


# Each edit function takes a piece's text and returns the texts it can become.
def replacements(text, pattern, swap):
    """Every single replacement of one match of `pattern` by swap[match]."""
    out = []
    for m in re.finditer(pattern, text):
        for new in swap(m.group(0)):
            out.append(text[:m.start()] + new + text[m.end():])
    return out


def relational(text):
    swap = {" < ": [" <= "], " <= ": [" < "], " > ": [" >= "], " >= ": [" > "]}
    return replacements(text, r" (<=|>=|<|>) ", lambda s: swap[s])


def equality(text):
    return replacements(text, r" (==|!=) ", lambda s: [" != " if s == " == " else " == "])


def logical(text):
    return replacements(text, r" (&&|\|\|) ", lambda s: [" || " if s == " && " else " && "])


def arithmetic(text):
    return replacements(text, r"(?<=[\w)]) (\+|-) (?=[\w(])", lambda s: [" - " if s == " + " else " + "])


def boundary(text):
    return replacements(text, INTEGER, lambda s: [str(int(s) + 1)] + ([str(int(s) - 1)] if int(s) > 0 else []))


def constant(text):
    def other(s):
        if s in ("true", "false"):
            return ["false" if s == "true" else "true"]
        return ["0"] if int(s) not in (0, 1) else []  # 1 and 0 are boundary's already
    return replacements(text, INTEGER + r"|\btrue\b|\bfalse\b", other)


def matching_paren(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def negation(text):
    out = []
    for m in re.finditer(r"\b(if|while) \(", text):
        open_at = m.end() - 1
        close = matching_paren(text, open_at)
        if close < 0:
            continue
        condition = text[open_at + 1:close]
        simple = re.fullmatch(r"!\w[\w.\->]*(\(\))?", condition)  # !row, !x.empty()
        grouped = condition.startswith("!(") and matching_paren(condition, 1) == len(condition) - 1
        if simple or grouped:
            new = condition[1:]  # if (!x) -> if (x)
        else:
            new = "!(" + condition + ")"
        out.append(text[:open_at + 1] + new + text[close:])
    return out


def top_level_arguments(text, open_at, close):
    """The (start, end) of each argument between the parenthesis at open_at and its match at close."""
    spans, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, close):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(text[i], 0)
        if text[i] == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, close))
    return spans


def argument_swap(text):
    # two neighbouring arguments of a call swapped, where both are names or expressions (swapping a literal
    # index with a value is no slip anyone makes): claim(scope, now, fp, lease_ms, ttl_ms) -> (.., ttl_ms, lease_ms)
    out = []
    for m in re.finditer(r"(?<=\w)\(", text):
        close = matching_paren(text, m.start())
        if close < 0:
            continue
        spans = top_level_arguments(text, m.start(), close)
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            a, b = text[a0:a1].strip(), text[b0:b1].strip()
            if a and b and a != b and not re.fullmatch(INTEGER, a) and not re.fullmatch(INTEGER, b):
                out.append(text[:a0] + text[a0:a1].replace(a, b) + "," + text[b0:b1].replace(b, a) + text[b1:])
    return out


def sql_relational(text):
    swap = {" < ": [" <= "], " <= ": [" < "], " > ": [" >= "], " >= ": [" > "], " = ": [" <> "]}
    out = []
    set_at = text.find("SET ")
    where_at = text.find("WHERE ")
    for m in re.finditer(r" (<=|>=|<|>|=) ", text):
        # an = of SET (an assignment) is not a comparison: only those after the WHERE, or in a fragment
        if m.group(0) == " = " and set_at >= 0 and (where_at < 0 or m.start() < where_at):
            continue
        if m.group(0) == " = " and re.match(r"\s*\w+ \+", text[m.end():]):
            continue  # fence = fence + 1
        for new in swap[m.group(0)]:
            out.append(text[:m.start()] + new + text[m.end():])
    return out


def sql_logical(text):
    return replacements(text, r" (AND|OR) ", lambda s: [" OR " if s == " AND " else " AND "])


def sql_clause(text):
    out = []
    # one AND term: a parenthesized group or a plain comparison
    for m in re.finditer(r" AND (\([^()]*\)|[^()]*?)(?= AND | OR |\)|\"|$| LIMIT)", text):
        out.append(text[:m.start()] + text[m.end():])
    for m in re.finditer(r" LIMIT \S+", text):
        out.append(text[:m.start()] + text[m.end():])
    for m in re.finditer(r"\b(UNIQUE|PRIMARY KEY) \(([^()]*)\)", text):
        columns = [c.strip() for c in m.group(2).split(",")]
        if len(columns) > 1:
            for drop in range(len(columns)):
                kept = ", ".join(c for i, c in enumerate(columns) if i != drop)
                out.append(text[:m.start(2)] + kept + text[m.end(2):])
    return out


def sql_literal(text):
    swap = {"'completed'": ["'in_progress'"], "'in_progress'": ["'completed'"]}
    return replacements(text, r"'completed'|'in_progress'", lambda s: swap[s])


# name -> (which pieces it edits, the edit)
PIECE_OPERATORS = {
    "relational": ("code", relational),
    "equality": ("code", equality),
    "logical": ("code", logical),
    "arithmetic": ("code", arithmetic),
    "negation": ("code", negation),
    "boundary": ("code", boundary),
    "constant": ("code", constant),
    "argument-swap": ("code", argument_swap),
    "sql-relational": ("sql", sql_relational),
    "sql-logical": ("sql", sql_logical),
    "sql-clause": ("sql", sql_clause),
    "sql-literal": ("sql", sql_literal),
}
OPERATORS = list(PIECE_OPERATORS) + ["statement-deletion"]

# Lines no operator touches: includes, and a declaration's line that would only stop the build.
SKIPPED = re.compile(r"^\s*(#|using |namespace |static_assert|\}|$)")
DECLARATION = re.compile(r"^\s*(auto|const|static|constexpr|std::|int|bool|void|[A-Z]\w*(<[^>]*>)?[&*]?) +[\w&*]")


def deletable(line, code):
    """A whole statement on its own line, or one link of a call chain (.bind(...)), not a declaration."""
    stripped = code.strip()
    if not stripped or DECLARATION.match(line) or stripped.startswith(("return", "}", "{", "try", "case")):
        return False
    if stripped.startswith(".") and not stripped.endswith(";"):
        return True  # a link in the middle of a chain: the chain still compiles without it
    return stripped.endswith(";") and stripped.count("(") == stripped.count(")") and not stripped.startswith(".")


def mutants_of(path, text):
    """Every mutant of one file's text, in line order."""
    result, seen, raw_open = [], {}, None
    for number, line in enumerate(text.split("\n"), 1):
        pieces, next_raw = split(line, raw_open)
        in_raw, raw_open = raw_open is not None, next_raw
        if SKIPPED.match(line) and not in_raw:
            continue
        candidates = []
        for name, (kind, edit) in PIECE_OPERATORS.items():
            if name == "argument-swap" and not line.startswith(" "):
                continue  # a definition's parameters (at the left margin): swapping them only stops the build
            for index, (piece_kind, piece) in enumerate(pieces):
                wanted = piece_kind == "code" if kind == "code" else piece_kind == "string" and (
                    in_raw or is_sql(piece))
                if not wanted:
                    continue
                for new in edit(piece):
                    changed = pieces[:index] + [(piece_kind, new)] + pieces[index + 1:]
                    candidates.append((name, rebuild(line, pieces, changed)))
        code = "".join(t for k, t in pieces if k == "code")
        if not in_raw and deletable(line, code):
            candidates.append(("statement-deletion", ""))
        for name, after in candidates:
            if after == line:
                continue
            key = (name, line.strip(), after.strip())
            nth = seen.get(key, 0)
            seen[key] = nth + 1
            result.append(Mutant(path, number, name, line, after, nth))
    return result


def rebuild(line, pieces, changed):
    """The line with one piece changed: the original text around the pieces kept exactly (quotes, raw-string
    delimiters), by replacing the one piece that differs in place."""
    at = 0
    for (_, old), (_, new) in zip(pieces, changed):
        found = line.find(old, at)
        if old != new:
            return line[:found] + new + line[found + len(old):]
        at = found + len(old)
    return line


def apply(text, mutant):
    """The file's text with the mutant's line changed (or deleted); refuses a line that is not as recorded."""
    lines = text.split("\n")
    if lines[mutant.line - 1] != mutant.before:
        raise ValueError(f"{mutant.path}:{mutant.line} is no longer `{mutant.before.strip()}`")
    if mutant.after == "" and mutant.operator == "statement-deletion":
        del lines[mutant.line - 1]
    else:
        lines[mutant.line - 1] = mutant.after
    return "\n".join(lines)
