"""Tables read from files for the command line: CSV with the standard
library, Parquet through pyarrow (an optional extra), as named columns of
numbers (float64, NaN for missing) or of strings (object, None for missing).
"""

import csv
import os

import numpy as np

# Cells that mean "no value" in a CSV file, as pandas reads them by default
# (and "?", the UCI repository's mark).
MISSING_CELLS = frozenset(["", "?", "NA", "N/A", "NaN", "nan", "NULL", "null", "None", "#N/A",
                           "-NaN", "-nan", "<NA>", "n/a"])


class TableError(ValueError):
    """A file that cannot be read as a table, or a column that is not there."""


class Table:
    """Columns of equal length, by name, in file order.

    Attributes
    ----------
    names : list of str
    columns : dict of str to ndarray
        float64 for numeric columns (NaN missing), object for the others
        (str values, None missing).
    """

    def __init__(self, names, columns, lines=None):
        self.names = list(names)
        self.columns = columns
        self.lines = lines

    def place(self, row):
        """Where row ``row`` (from 0) is in the file: its line in a CSV file
        (the header is line 1), else its row number from 1."""
        return f"line {self.lines[row]}" if self.lines is not None else f"row {row + 1}"

    @property
    def n_rows(self):
        return len(self.columns[self.names[0]]) if self.names else 0

    def column(self, name):
        """The column ``name``, or TableError naming the columns there are."""
        if name not in self.columns:
            raise TableError(f"no column {name!r} (the columns are: {', '.join(self.names)})")
        return self.columns[name]

    def without(self, name):
        """The table without the column ``name``."""
        names = [other for other in self.names if other != name]
        return Table(names, {other: self.columns[other] for other in names}, self.lines)

    def select(self, names):
        """The columns ``names`` in that order, or TableError naming those missing."""
        missing = [name for name in names if name not in self.columns]
        if missing:
            raise TableError(f"the data lacks the column(s) {', '.join(map(repr, missing))} "
                             "the model was trained on")
        return Table(names, {name: self.columns[name] for name in names}, self.lines)

    def matrix(self):
        """The columns side by side: float64 when all are numeric, else an
        object array in which categorical columns keep their strings."""
        if all(self.columns[name].dtype == np.float64 for name in self.names):
            return np.column_stack([self.columns[name] for name in self.names]) \
                if self.names else np.empty((0, 0))
        matrix = np.empty((self.n_rows, len(self.names)), dtype=object)
        for position, name in enumerate(self.names):
            matrix[:, position] = self.columns[name]
        return matrix


def read_table(path):
    """The table in a CSV (any other suffix) or Parquet (``.parquet``,
    ``.pq``) file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise TableError(f"no such file: {path}")
    if os.path.isdir(path):
        raise TableError(f"{path} is a directory, not a data file")
    if path.lower().endswith((".parquet", ".pq")):
        return _read_parquet(path)
    return _read_csv(path)


def _read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8-sig") as file:
            sample = file.read(65536)
            file.seek(0)
            try:
                dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
            except csv.Error:
                dialect = csv.excel
            reader = csv.reader(file, dialect)
            # Each record with the line it ends on; blank lines are skipped.
            records = [(reader.line_num, row) for row in reader if row]
    except UnicodeDecodeError:
        raise TableError(f"{path} is not a UTF-8 text (CSV) file") from None
    except csv.Error as error:
        raise TableError(f"{path} is not a valid CSV file ({error})") from None
    if not records:
        raise TableError(f"{path} is empty")
    header = [name.strip() for name in records[0][1]]
    _check_header(path, header)
    body = [row for _, row in records[1:]]
    lines = [line for line, _ in records[1:]]
    for line, row in zip(lines, body):
        if len(row) != len(header):
            raise TableError(f"{path}, line {line}: {len(row)} fields, the header has "
                             f"{len(header)}")
    if not body:
        raise TableError(f"{path} has a header but no rows")
    columns = {}
    for position, name in enumerate(header):
        columns[name] = _typed_column([row[position].strip() for row in body])
    return Table(header, columns, lines)


def _check_header(path, header):
    """TableError for a header with an empty or a repeated column name."""
    for position, name in enumerate(header, start=1):
        if not name and position == 1:
            raise TableError(f"{path}: column 1 of the header has no name, probably a row "
                             "index written by pandas' to_csv; write the file with "
                             "to_csv(path, index=False), or give the column a name")
        if not name:
            raise TableError(f"{path}: column {position} of the header has no name; give "
                             "every column a name")
        first = header.index(name) + 1
        if first != position:
            raise TableError(f"{path}: the header names columns {first} and {position} "
                             f"both {name!r}; every column needs a name of its own")


def _typed_column(cells):
    """float64 if every present cell is a number, else strings (object)."""
    present = [cell for cell in cells if cell not in MISSING_CELLS]
    try:
        numbers = np.array([float(cell) for cell in present], dtype=np.float64)
    except ValueError:
        return np.array([None if cell in MISSING_CELLS else cell for cell in cells],
                        dtype=object)
    if not np.isfinite(numbers).all():
        # inf is not a value trees split on; read such a column as text
        # would hide a mistake, so it is refused.
        raise TableError("a numeric column holds an infinite value")
    column = np.full(len(cells), np.nan)
    column[[cell not in MISSING_CELLS for cell in cells]] = numbers
    return column


def _read_parquet(path):
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise TableError("reading Parquet files needs pyarrow (pip install pyarrow)") from None
    try:
        table = parquet.read_table(path)
    except Exception as error:  # noqa: BLE001 (pyarrow raises many kinds)
        raise TableError(f"{path} is not a readable Parquet file ({error})") from None
    names = [str(name) for name in table.column_names]
    columns = {}
    for name, column in zip(names, table.columns):
        values = column.to_pylist()
        if all(value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
               for value in values):
            columns[name] = np.array([np.nan if value is None else float(value)
                                      for value in values], dtype=np.float64)
        else:
            columns[name] = np.array([None if value is None else str(value)
                                      for value in values], dtype=object)
    if not names or table.num_rows == 0:
        raise TableError(f"{path} has no rows")
    return Table(names, columns)


def write_csv(path, names, columns):
    """Columns (equal-length sequences) as a CSV file, or to standard output
    when ``path`` is None."""
    import sys
    file = sys.stdout if path is None else open(path, "w", newline="", encoding="utf-8")
    try:
        writer = csv.writer(file)
        writer.writerow(names)
        for row in zip(*columns):
            writer.writerow([_cell(value) for value in row])
    finally:
        if path is not None:
            file.close()


def _cell(value):
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.generic):
        return value.item()
    return value
