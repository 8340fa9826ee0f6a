#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""parquet_queries.py [--engine duckdb|spark] OUT [NAME...] - run the queries
formats/PARQUET.md documents (each a ```sql block after a "<!-- query
NAME -->" line) over what `hcbtrace convert ... -o OUT` wrote: OUT.parquet
and OUT.events.parquet, or the dataset OUT/ (a directory).  Prints one JSON
object, {NAME: [row, ...]}, each row a list of plain values (integers,
floats, strings, null; NaN as "nan", bytes as hex), so that two engines'
answers compare as text (scripts/fleet-check, tests/bats/parquet.bats)."""
import decimal
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "formats", "PARQUET.md")


def queries():
    text = open(DOC, encoding="utf-8").read()
    found = re.findall(r"<!-- query ([\w-]+) -->.*?```sql\n(.*?)```", text, re.S)
    return {name: sql.strip() for name, sql in found}


def plain(v):
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def sources(out):
    """(taps, events): the files or datasets of OUT."""
    if os.path.isdir(out):
        return os.path.join(out, "taps"), os.path.join(out, "events"), True
    stem = out[:-len(".parquet")] if out.endswith(".parquet") else out
    return out, stem + ".events.parquet", False


def run_duckdb(out, names):
    import duckdb
    taps, events, dataset = sources(out)
    con = duckdb.connect()
    for view, src in (("taps", taps), ("events", events)):
        if dataset:
            con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s/**/*.parquet', "
                        "hive_partitioning = true)" % (view, src))
        else:
            con.execute("CREATE VIEW %s AS SELECT * FROM '%s'" % (view, src))
    qs = queries()
    return {n: [plain(list(r)) for r in con.execute(qs[n]).fetchall()] for n in names}


def run_spark(out, names):
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("hcbtrace-fleet-check")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    taps, events, _ = sources(out)
    spark.read.parquet(taps).createOrReplaceTempView("taps")
    spark.read.parquet(events).createOrReplaceTempView("events")
    qs = queries()
    res = {n: [plain(list(r)) for r in spark.sql(qs[n]).collect()] for n in names}
    res["_version"] = spark.version
    spark.stop()
    return res


def main():
    args = sys.argv[1:]
    engine = "duckdb"
    if args[:1] == ["--engine"]:
        engine, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    out, names = args[0], args[1:] or list(queries())
    res = (run_spark if engine == "spark" else run_duckdb)(out, names)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
