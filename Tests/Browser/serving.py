"""What the browser tests share: the built fake Airtable (with its OAuth) and `tracker serve` beside it, and checks.

The fake's people: PERSON (its own token's user) and OTHER, who may sign in too."""

import json
import os
import re
import socket
import subprocess
import sys
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PERSON = "usrBROWSER0000001"
OTHER = "usrBROWSEROTHER01"
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_fake():
    fake = subprocess.Popen(
        [f"{BUILD}/fake-airtable", "--oauth", "fakeIntegration00001:fake-integration-secret",
         "--person", "patFAKEbrowser000.person=" + PERSON, "--person", "patFAKEbrowser000.other=" + OTHER],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    endpoint, base, token = fake.stdout.readline().split()
    return fake, endpoint, base, token


def start_serve(directory, endpoint, base, token, extra=None):
    secrets = {
        "token": token, "baseId": base, "table": "Design projects", "endpoint": endpoint,
        "serve": {"airtableOAuth": {"clientId": "fakeIntegration00001", "clientSecret": "fake-integration-secret",
                                     "url": endpoint}},
    }
    secrets.update(extra or {})
    path = os.path.join(directory, "Secrets.json")
    with open(path, "w") as f:
        json.dump(secrets, f)
    os.chmod(path, 0o600)
    env = {"PATH": "/usr/bin:/bin", "HOME": directory, "XDG_STATE_HOME": directory + "/state",
           "XDG_CACHE_HOME": directory + "/cache", "TRACKER_SECRETS": path}
    log = open(os.path.join(directory, "serve.log"), "w+")
    serve = subprocess.Popen([f"{BUILD}/tracker", "serve", "--listen", "127.0.0.1:0"], env=env, cwd=directory,
                             stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(300):
        log.seek(0)
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", log.read())
        if found:
            return serve, int(found.group(1)), log
        time.sleep(0.05)
    raise SystemExit("tracker serve did not start")
