"""The guide (README.md and docs/): every relative link reaches a file, every page is
linked from the README, and every code block runs and prints what the page says.

How a page's fenced blocks are read (docs/development.md tells writers the same):

- A ```python block runs. The blocks of one page run in order, in one namespace, in a
  fresh temporary directory (the working directory, shared with the page's shell
  commands), with matplotlib's non-interactive backend (MPLBACKEND=Agg).
- A ```console block holds shell commands after a ``$ `` prompt; the lines under a
  command, up to the next prompt, are what it prints. A block without a language (or
  ```sh, ```shell, ```bash) holds one command a line, a ``# comment`` after it ignored.
  Only ``python ...`` commands run, with ``python`` replaced by this interpreter; each
  must exit with status 0.
- A ```text block right after a block that runs (blank lines between at most) is what
  that block prints. Elsewhere a ```text block is text that is not code (a synopsis).
- Stated output is compared with what was printed (standard output, and for commands
  standard error too): text exactly, up to the width of runs of spaces; ``...`` stands
  for anything; a whole number stands for itself, and a number with decimals for any
  printed number within half a unit of its last digit (``0.95`` for a printed 0.9512).
- ``<!-- not run: REASON -->`` on the line just before a block's opening fence, or just
  after its closing fence, keeps it from running (a text block after it goes with it).
  The page must say the reason to a reader as well; the marker is for this test. Any
  other block that cannot run fails the test.
"""

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from stated_output import output_mismatch

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```\s*(\S*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(\S.*?)\s*-->\s*$")
SHELL = {"", "sh", "shell", "bash"}


def relative_links(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
            yield target.split("#")[0]


def test_relative_links_reach_files():
    broken = [(page.name, target) for page in PAGES for target in relative_links(page)
              if not (page.parent / target).exists()]
    assert not broken


def test_every_guide_page_is_linked_from_the_readme():
    linked = {(ROOT / target).resolve() for target in relative_links(ROOT / "README.md")}
    assert [page.name for page in PAGES[1:] if page.resolve() not in linked] == []


# --- reading a page's blocks ---------------------------------------------------------

@dataclass
class Block:
    language: str
    line: int            # the line of the block's first line of code (1-based)
    text: str
    not_run: str = None  # the reason, when marked
    output: "Block" = None


def fenced_blocks(markdown):
    """Every fenced block of ``markdown`` in order, with its not-run marker."""
    lines = markdown.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"line {index + 1}: a fence that is never closed")
        marks = [NOT_RUN.match(lines[at]) for at in (index - 1, end + 1)
                 if 0 <= at < len(lines)]
        reasons = [mark.group(1) for mark in marks if mark]
        blocks.append((Block(opening.group(1).lower(), index + 2,
                             "\n".join(lines[index + 1:end]),
                             reasons[0] if reasons else None),
                       index, end))
        index = end + 1
    # A text block right after a block that runs is that block's output.
    result = []
    for (block, start, _), previous in zip(blocks, [None, *blocks]):
        follows = (previous is not None and block.language == "text"
                   and previous[0].language != "text"
                   and all(not line.strip() for line in lines[previous[2] + 1:start]))
        if follows:
            previous[0].output = block
        else:
            result.append(block)
    return result


def page_blocks(page):
    return fenced_blocks(page.read_text(encoding="utf-8"))


# --- running blocks -------------------------------------------------------------------

def shell_commands(block):
    """(command, stated output or None) for each command of a shell block."""
    if block.language == "console":
        commands = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                commands.append([line[2:], []])
            elif commands:
                commands[-1][1].append(line)
            elif line.strip():
                raise AssertionError(f"line {block.line}: a console block starts with "
                                     "a '$ ' prompt")
        return [(command, "\n".join(output) if any(s.strip() for s in output) else None)
                for command, output in commands]
    commands = []
    for line in block.text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            commands.append((line, None))
    return commands


def plain_python(command):
    words = shlex.split(command)
    return bool(words) and words[0] == "python" and not set(words) & {"&&", "||", "|", ";",
                                                                      ">", "<"}


def run_command(command, where):
    words = shlex.split(command)
    environment = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1",
                   "COLUMNS": "80"}
    result = subprocess.run([sys.executable, *words[1:]], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=environment,
                            timeout=300)
    assert result.returncode == 0, (
        f"{where}: `{command}` exited with status {result.returncode}:\n{result.stdout}")
    return result.stdout


def run_python(block, namespace, page):
    code = compile("\n" * (block.line - 1) + block.text, str(page), "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(code, namespace)
    return printed.getvalue()


def run_page(page, blocks):
    """Run ``blocks`` of ``page`` in order in the working directory; return the
    stated outputs that differ from what was printed, and the blocks of an unknown
    language."""
    namespace = {"__name__": "__main__"}
    problems = []
    for block in blocks:
        where = f"{page.name}, line {block.line}"
        if block.not_run is not None or block.language == "text":
            continue
        if block.language == "python":
            printed = run_python(block, namespace, page)
        elif block.language in SHELL or block.language == "console":
            commands = shell_commands(block)
            if unplain := [command for command, _ in commands if not plain_python(command)]:
                problems.append(f"{where}: `{unplain[0]}` is not a plain python command, so "
                                "this test cannot run it; say in the page why the block is "
                                "not run and mark it <!-- not run: ... -->")
                continue
            printed = ""
            for command, stated in commands:
                output = run_command(command, where)
                printed += output
                if stated is not None and (problem := output_mismatch(stated, output)):
                    problems.append(f"{where}, `{command}`: {problem}")
        else:
            problems.append(f"{where}: a ```{block.language} block is neither run by this "
                            "test nor marked <!-- not run: ... -->")
            continue
        if block.output is not None and (problem := output_mismatch(block.output.text,
                                                                    printed)):
            problems.append(f"{where}: {problem}")
    return problems


PAGES_WITH_CODE = [page for page in PAGES
                   if any(block.language != "text" for block in page_blocks(page))]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda page: page.name)
def test_page_runs_and_prints_what_it_says(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    try:
        problems = run_page(page, page_blocks(page))
    finally:
        plt.close("all")
    assert not problems, "\n\n".join(problems)


def test_the_pages_have_code_and_most_of_it_runs():
    blocks = [block for page in PAGES for block in page_blocks(page)
              if block.language != "text"]
    ran = [block for block in blocks if block.not_run is None]
    assert len(PAGES_WITH_CODE) >= 7 and len(ran) >= 10 and len(ran) > len(blocks) / 2


# --- the rules above, on made-up pages --------------------------------------------------

def test_a_text_block_after_code_is_its_output_and_a_marker_keeps_a_block_from_running():
    blocks = fenced_blocks("intro\n<!-- not run: installs packages -->\n```\npip install x\n"
                           "```\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
                           "```text\nsynopsis\n```\n")
    assert [(block.language, block.line, block.not_run) for block in blocks] == [
        ("", 4, "installs packages"), ("python", 8, None), ("text", 16, None)]
    assert blocks[1].output.text == "1" and blocks[0].output is None


@pytest.mark.parametrize("stated, printed", [
    ("accuracy 0.95", "accuracy 0.9512"),
    ("accuracy 0.95", "accuracy  0.946"),
    ("[ True False] [array(['a', 'b'], ...)]",
     "[ True False] [array(['a', 'b'], dtype=object)]"),
    ("fit ... ms\ntree: depth 8", "fit 2.05 ms\ntree: depth 8\n"),
    ("4 leaves", "4 leaves"),
])
def test_stated_output_that_holds(stated, printed):
    assert output_mismatch(stated, printed) is None


@pytest.mark.parametrize("stated, printed", [
    ("accuracy 0.95", "accuracy 0.9561"),
    ("accuracy 0.95", "precision 0.95"),
    ("4 leaves", "5 leaves"),
    ("if a then class = yes", "if a then class = no"),
    ("one line", "one line\nand another"),
    ("depth 8", "depth 8.4"),
])
def test_stated_output_that_does_not_hold(stated, printed):
    assert output_mismatch(stated, printed) is not None


def test_a_wrong_claim_an_unmarked_install_and_an_unknown_language_fail(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    fine = "```python\nx = 6 * 7\nprint(x)\n```\n\n```text\n42\n```\n"
    assert run_page(page, fenced_blocks(fine)) == []
    wrong = fine.replace("42", "41")
    assert "41 is stated where 42 was printed" in run_page(page, fenced_blocks(wrong))[0]
    assert "neither run by this test nor marked" in run_page(
        page, fenced_blocks("```json\n{}\n```\n"))[0]
    unmarked = "```\npython -m fasttree --help\npip install fasttree\n```\n"
    assert "`pip install fasttree` is not a plain python command" in run_page(
        page, fenced_blocks(unmarked))[0]
    assert run_page(page, fenced_blocks("<!-- not run: installs packages -->\n" + unmarked)) == []


def test_console_commands_run_in_the_pages_directory_and_their_output_is_compared(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    markdown = ("```python\nopen('made.txt', 'w').write('hello')\n```\n\n```console\n"
                "$ python -c \"print(open('made.txt').read())\"\nhello\n"
                "$ python -c \"print(2 / 3)\"\n0.67\n```\n")
    assert run_page(page, fenced_blocks(markdown)) == []
    problems = run_page(page, fenced_blocks(markdown.replace("0.67", "0.66")))
    assert len(problems) == 1 and "page.md, line 6" in problems[0]
    with pytest.raises(AssertionError, match="exited with status 1"):
        run_page(page, fenced_blocks("```console\n$ python -c \"import sys; sys.exit(1)\"\n"
                                     "```\n"))
