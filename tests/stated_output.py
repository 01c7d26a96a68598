"""Comparing what a page or a docstring says a block prints with what it printed.

Text is compared exactly, up to the width of runs of spaces and tabs, trailing spaces
and leading and trailing blank lines; ``...`` stands for any text (newlines included);
a whole number stands for itself, and a number with decimals for any printed number
within half a unit of its last digit (``0.95`` for a printed 0.9512, not for 0.956), so
that a page can state a value to the digits it means.
"""

import re
from decimal import Decimal

NUMBER = r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"


def output_pattern(stated):
    """A regular expression for ``stated`` output, and the numbers it states."""
    parts, numbers = [], []
    for token in re.finditer(rf"(\.\.\.)|({NUMBER})|([ \t]+)|(.)", stated, flags=re.DOTALL):
        ellipsis, number, spaces, other = token.groups()
        if ellipsis:
            parts.append(r".*?")
        elif number:
            parts.append(rf"({NUMBER})")
            numbers.append(number)
        elif spaces:
            parts.append(r"[ \t]+")
        else:
            parts.append(re.escape(other))
    return "".join(parts), numbers


def tidy(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip()


def output_mismatch(stated, printed):
    """None when ``printed`` is what ``stated`` says, else what differs."""
    stated, printed = tidy(stated), tidy(printed)
    pattern, numbers = output_pattern(stated)
    match = re.fullmatch(pattern, printed, flags=re.DOTALL)
    if match is None:
        return f"it is said to print\n{stated}\nbut it printed\n{printed}"
    for said, got in zip(numbers, match.groups()):
        if re.fullmatch(r"-?\d+", said):
            wrong = got != said
        else:
            last_digit = Decimal(said).as_tuple().exponent
            wrong = abs(float(got) - float(said)) > 0.5 * 10.0 ** last_digit * (1 + 1e-9)
        if wrong:
            return (f"{said} is stated where {got} was printed; it is said to print\n"
                    f"{stated}\nbut it printed\n{printed}")
    return None
