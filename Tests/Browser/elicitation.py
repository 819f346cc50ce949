"""Approval through elicitation, with PyPI's `mcp` client as a person's app would use it (its elicitation callback).

Starts the built fake Airtable and `tracker mcp` over stdio with `"assistants": {"approve": ["update"]}`, then in
each protocol era (the handshake's `elicitation/create`, and 2026-07-28's `input_required` with the call made again):
- the person accepts: the call answers with the write made (status applied, the record written once);
- the person declines: the call answers rejected, and nothing is written;
and a client that cannot ask gets approval_needed, nothing written.

Usage: python3 elicitation.py BUILD_DIR   (BUILD_DIR holds `tracker` and `fake-airtable`). Exits 0 when every check
holds.
"""

import asyncio
import json
import os
import sys
import tempfile
import urllib.request

from mcp import Client, StdioServerParameters
from mcp import types

from serving import BUILD, check, failures, start_fake

PROJECT = "rec3g0Xxmw2rw3scs"


def notes(endpoint, base, token):
    request = urllib.request.Request(f"{endpoint}/v0/{base}/Design%20projects/{PROJECT}",
                                     headers={"Authorization": "Bearer " + token})
    return json.loads(urllib.request.urlopen(request).read())["fields"].get("Notes")


async def main():
    directory = tempfile.mkdtemp(prefix="tracker-elicit-")
    fake, endpoint, base, token = start_fake()
    secrets = os.path.join(directory, "Secrets.json")
    with open(secrets, "w") as f:
        json.dump({"token": token, "baseId": base, "table": "Design projects", "endpoint": endpoint,
                   "assistants": {"approve": ["update"]}}, f)
    os.chmod(secrets, 0o600)
    server = StdioServerParameters(command=f"{BUILD}/tracker", args=["mcp"], env={
        "PATH": "/usr/bin:/bin", "HOME": directory, "TRACKER_SECRETS": secrets})
    asked = []

    def person(answer):
        async def callback(context, params):
            asked.append(params)
            return types.ElicitResult(action=answer)
        return callback

    try:
        for mode in ["legacy", "2026-07-28"]:
            for answer in ["accept", "decline"]:
                before = notes(endpoint, base, token)
                wanted = f"{answer}ed in {mode}"
                asked.clear()
                async with Client(server, mode=mode, elicitation_callback=person(answer)) as client:
                    result = await client.call_tool("update_project", {"project": PROJECT, "notes": wanted})
                structured = result.structured_content or {}
                check(len(asked) == 1 and "Notes" in (asked[0].message if asked else ""),
                      f"{mode}: the person is asked once, the diff in the message")
                if answer == "accept":
                    check(structured.get("status") == "applied" and not result.is_error,
                          f"{mode}: accepted, the call answers with the write made ({structured.get('status')})")
                    check(notes(endpoint, base, token) == wanted, f"{mode}: the record holds it")
                else:
                    check(structured.get("status") == "rejected" and not result.is_error,
                          f"{mode}: declined, the call answers rejected ({structured.get('status')})")
                    check(notes(endpoint, base, token) == before, f"{mode}: nothing was written")

        # A client that cannot ask: approval_needed, nothing written.
        before = notes(endpoint, base, token)
        async with Client(server, mode="legacy") as client:
            result = await client.call_tool("update_project", {"project": PROJECT, "notes": "not asked"})
        structured = result.structured_content or {}
        check(structured.get("status") == "approval_needed" and structured.get("approval", "").startswith("apr"),
              "a client that cannot ask gets approval_needed and the approval's id")
        check(notes(endpoint, base, token) == before, "and nothing is written")
    finally:
        fake.terminate()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("approval through elicitation holds with a real client")


asyncio.run(main())
