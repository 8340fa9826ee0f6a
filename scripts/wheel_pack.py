#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/wheel_pack.py - the hcbtrace wheel's zip, for scripts/wheel.

Written by hand rather than by a build backend: what goes in is a binary
made elsewhere, data files and a pure-Python package, and a backend would
add nothing but a dependency.  Tagged py3-none-linux_x86_64; auditwheel
gives it its manylinux tag afterwards."""
import argparse
import base64
import hashlib
import os
import stat
import zipfile

NAME = "hcbtrace"
SUMMARY = "Trace JAX host callbacks and taps of a running program from outside, with BPF"

DESCRIPTION = """\
hcbtrace attaches to a running JAX (or libhcbtap) program by pid and shows,
records and compares what its host callbacks and taps see, without changing
or restarting it.  This wheel holds one fully static x86-64 Linux binary
(`hcbtrace`, put on PATH), its man page and shell completions, and the
recording reader (`from hcbtrace.recording import taps`; numpy only).

Licences: hcbtrace is MIT.  The binary is statically linked with libelf
(elfutils) and glibc, under the LGPL, and with libbpf, zlib,
libdeflate, jansson, ncurses, capstone and GCC's runtime under their own
licences: every text is in this wheel's .dist-info/licenses/, and
RELINKING.md there says how to relink hcbtrace with a modified libelf or
glibc, with the written offer of their sources.
"""


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9)
        self.records = []

    def add(self, arcname, data, executable=False):
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        self.zip.writestr(info, data)
        self.records.append("%s,%s,%d" % (arcname, record_hash(data), len(data)))

    def add_file(self, arcname, path, executable=False):
        with open(path, "rb") as f:
            self.add(arcname, f.read(), executable)

    def close(self, record_name):
        self.records.append(record_name + ",,")
        self.add_raw(record_name, "\n".join(self.records) + "\n")
        self.zip.close()

    def add_raw(self, arcname, text):
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.zip.writestr(info, text)


def metadata(version, licence_files):
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + version,
             "Summary: " + SUMMARY,
             "License: MIT (hcbtrace); the static binary includes LGPL-2.1+/GPL-2+ libelf "
             "(elfutils) and LGPL-2.1+ glibc: see RELINKING.md in .dist-info/licenses",
             "Platform: Linux x86-64",
             "Classifier: License :: OSI Approved :: MIT License",
             "Classifier: Operating System :: POSIX :: Linux",
             "Classifier: Programming Language :: C",
             "Requires-Python: >=3.8",
             "Requires-Dist: numpy",
             "Provides-Extra: pandas",
             "Requires-Dist: pandas; extra == \"pandas\"",
             "Provides-Extra: bfloat16",
             "Requires-Dist: ml_dtypes; extra == \"bfloat16\"",
             # the reader's Parquet writer (hcbtrace.recording.parquet, with
             # the h37 branch's python/hcbtap/recording files), and convert -o
             # X.parquet, which runs it
             "Provides-Extra: parquet",
             "Requires-Dist: pyarrow; extra == \"parquet\""]
    lines += ["License-File: licenses/" + f for f in licence_files]
    lines += ["Description-Content-Type: text/markdown", "", DESCRIPTION]
    return "\n".join(lines)


def add_package(wheel, src):
    """hcbtrace/ and hcbtrace/recording/: the reader's files as they are in
    python/hcbtap/recording (relative imports only), so one source serves
    both packages."""
    wheel.add("hcbtrace/__init__.py",
              b'# SPDX-License-Identifier: MIT\n"""hcbtrace\'s Python side: the recording reader,\n'
              b'hcbtrace.recording (the same as hcbtap.recording)."""\n')
    reader = os.path.join(src, "python", "hcbtap", "recording")
    for name in sorted(os.listdir(reader)):
        if name.endswith(".py"):
            wheel.add_file("hcbtrace/recording/" + name, os.path.join(reader, name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--src", required=True, help="the source tree")
    ap.add_argument("--stage", required=True, help="hcbtrace and licenses/")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    v = args.version
    data, info = "%s-%s.data" % (NAME, v), "%s-%s.dist-info" % (NAME, v)
    path = os.path.join(args.out, "%s-%s-py3-none-linux_x86_64.whl" % (NAME, v))
    wheel = Wheel(path)
    wheel.add_file(data + "/scripts/hcbtrace", os.path.join(args.stage, "hcbtrace"), executable=True)
    wheel.add_file(data + "/data/share/man/man1/hcbtrace.1", os.path.join(args.src, "man", "hcbtrace.1"))
    comp = os.path.join(args.src, "completions")
    wheel.add_file(data + "/data/share/bash-completion/completions/hcbtrace",
                   os.path.join(comp, "hcbtrace.bash"))
    wheel.add_file(data + "/data/share/zsh/site-functions/_hcbtrace", os.path.join(comp, "_hcbtrace"))
    wheel.add_file(data + "/data/share/fish/vendor_completions.d/hcbtrace.fish",
                   os.path.join(comp, "hcbtrace.fish"))
    add_package(wheel, args.src)
    licences = sorted(os.listdir(os.path.join(args.stage, "licenses")))
    for name in licences:
        wheel.add_file(info + "/licenses/" + name, os.path.join(args.stage, "licenses", name))
    wheel.add(info + "/METADATA", metadata(v, licences).encode())
    wheel.add(info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: hcbtrace scripts/wheel_pack.py\n"
                                "Root-Is-Purelib: false\nTag: py3-none-linux_x86_64\n").encode())
    wheel.add(info + "/top_level.txt", b"hcbtrace\n")
    wheel.close(info + "/RECORD")
    print(path)


if __name__ == "__main__":
    main()
