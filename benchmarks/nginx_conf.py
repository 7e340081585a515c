"""docs/nginx/mjrules.conf made runnable on loopback: its ``listen`` address and upstream ports
replaced, wrapped in a main config whose files live in a scratch folder. Used by
``benchmarks/rooms.py --nginx`` and tests/test_rooms_cluster.py, so the config they run is the
one docs/serve.md tells a host to install."""
from __future__ import annotations

import os
import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "nginx" / "mjrules.conf"


def render(port: int, upstreams: list[int], scratch: Path) -> str:
    """The whole nginx.conf: the documented site on ``127.0.0.1:port`` in front of
    ``127.0.0.1:P`` for each P in ``upstreams``; pid, logs and temp files in ``scratch``."""
    site = DOC.read_text(encoding="utf-8")
    site, n = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{port};", site, flags=re.M)
    if n != 1:
        raise ValueError(f"{DOC}: expected one `listen 80;`")
    lines = re.findall(r"^\s*server 127\.0\.0\.1:\d+ (.*);$", site, flags=re.M)
    if not lines:
        raise ValueError(f"{DOC}: expected `server 127.0.0.1:PORT …;` lines in the upstream")
    options = lines[0]
    site = re.sub(r"(upstream mjrules \{\n)(?:\s*server 127\.0\.0\.1:\d+ .*;\n)+",
                  lambda m: m.group(1) + "".join(f"    server 127.0.0.1:{p} {options};\n" for p in upstreams), site)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (scratch / d).mkdir(parents=True, exist_ok=True)
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (f"{user}worker_processes 1;\npid {scratch}/nginx.pid;\nerror_log {scratch}/error.log warn;\n"
            "events { worker_connections 4096; }\n"
            "http {\n    access_log off;\n"
            f"    client_body_temp_path {scratch}/body;\n    proxy_temp_path {scratch}/proxy;\n"
            f"    fastcgi_temp_path {scratch}/fastcgi;\n    uwsgi_temp_path {scratch}/uwsgi;\n"
            f"    scgi_temp_path {scratch}/scgi;\n{site}\n}}\n")
