"""serve's approval page in a real browser.

Starts the built fake Airtable (with its OAuth and two people) and `tracker serve` (whose default policy holds
assistants' changes and deletions for approval), makes an agent's token for the person on /account, and then:
- an update through the tools answers approval_needed with the page's address, and writes nothing;
- the page (signed in as on /account) shows the diff as a table, the value now struck through and the new beside it;
  Approve makes the write once, under the person's own token, and approval_status says applied;
- Reject writes nothing, and approval_status says rejected;
- a record changed in Airtable after the plan: Approve shows what changed and writes nothing; approved again, it is made;
- a deletion's page shows its whole row;
- a client that can ask its person (elicitation, URL mode) sends them to the page, and its call answers with the write;
- another person signed in is refused (403), whatever link they hold; a form without the page's CSRF token is refused;
  the page cannot be framed.

Usage: python3 approve.py BUILD_DIR   (BUILD_DIR holds `tracker` and `fake-airtable`). Exits 0 when every check holds.
"""

import asyncio
import json
import re
import sys
import tempfile
import urllib.error
import urllib.request

from mcp import ClientSession, types
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from playwright.async_api import async_playwright

from serving import CHROMIUM, OTHER, PERSON, check, failures, start_fake, start_serve

PROJECT = "rec3g0Xxmw2rw3scs"


def airtable(endpoint, base, token, method="GET", fields=None):
    """The project as Airtable holds it (the fake's own token: a person in the app)."""
    body = json.dumps({"fields": fields}).encode() if fields else None
    request = urllib.request.Request(f"{endpoint}/v0/{base}/Design%20projects/{PROJECT}", data=body, method=method,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(request).read())["fields"]


async def main():
    directory = tempfile.mkdtemp(prefix="tracker-approve-")
    fake, endpoint, base, token = start_fake()
    serve, port, log = start_serve(directory, endpoint, base, token)
    origin = f"http://127.0.0.1:{port}"
    next_id = [0]

    def tool(agent, name, arguments):
        next_id[0] += 1
        body = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": "tools/call", "params": {
            "name": name, "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
        request = urllib.request.Request(origin + "/mcp", data=body, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer " + agent})
        text = urllib.request.urlopen(request).read().decode()
        lines = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")] or [text]
        answer = json.loads(lines[-1])
        return answer["result"].get("structuredContent", {})

    print("pages kept in", directory, flush=True)
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                       args=["--no-sandbox"])
            mine = await browser.new_context()
            page = await mine.new_page()
            await page.goto(origin + "/account")
            await page.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
            await page.click(f"button[value={PERSON}]")
            await page.wait_for_url(origin + "/account*")
            await page.click("button[value=new-token]")
            await page.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
            await page.click(f"button[value={PERSON}]")
            await page.wait_for_selector("#new-token")
            agent = await page.inner_text("#new-token")
            notes = airtable(endpoint, base, token).get("Notes")

            # Approve: the diff as a table, then the write made once.
            waiting = tool(agent, "update_project", {"project": PROJECT, "notes": "approved in a browser"})
            check(waiting.get("status") == "approval_needed", f"an update waits for approval ({waiting.get('status')})")
            url = waiting.get("approvalUrl", "")
            check(url == origin + "/approve/" + waiting.get("approval", "?"), "its answer gives the page's address")
            check(airtable(endpoint, base, token).get("Notes") == notes, "nothing was written yet")
            await page.goto(url)
            check(await page.inner_text("#status") == "pending", "the page says it waits")
            check(await page.locator("#diff del").first.inner_text() == (f'"{notes}"' if notes else "(empty)"),
                  "the value now is struck through")
            check(await page.locator("#diff ins").first.inner_text() == '"approved in a browser"',
                  "the new value beside it")
            await page.click("button[value=approve]")
            await page.wait_for_selector("#said")
            check(await page.inner_text("#status") == "applied", "Approve makes it")
            check(airtable(endpoint, base, token).get("Notes") == "approved in a browser", "the record holds it")
            status = tool(agent, "approval_status", {"id": waiting["approval"]})
            check(status.get("status") == "applied" and status.get("result", {}).get("records") == [PROJECT],
                  "approval_status: applied, with the record written")
            check(await page.locator("button[value=approve]").count() == 0, "an applied approval has no buttons")
            await page.screenshot(path=directory + "/approved.png", full_page=True)
            written = tool(agent, "history", {"limit": 1}).get("entries", [{}])[0]
            check(written.get("approved") == waiting["approval"] and written.get("user") == PERSON,
                  "the write is journaled with the approval, as the person")
            log.seek(0)
            patches = [json.loads(line) for line in log.read().splitlines() if line.startswith("{")]
            check(sum(1 for line in patches if line.get("path", "").startswith("/approve/")) >= 2,
                  "the page's requests are logged")

            # Reject: nothing written.
            waiting = tool(agent, "update_project", {"project": PROJECT, "notes": "never written"})
            await page.goto(waiting["approvalUrl"])
            await page.click("button[value=reject]")
            await page.wait_for_selector("#said")
            check(await page.inner_text("#status") == "rejected", "Reject drops it")
            check(airtable(endpoint, base, token).get("Notes") == "approved in a browser", "and nothing was written")
            check(tool(agent, "approval_status", {"id": waiting["approval"]}).get("status") == "rejected",
                  "approval_status: rejected")

            # A change since the plan: shown, never written over; approved again as it is now.
            waiting = tool(agent, "update_project", {"project": PROJECT, "notes": "the assistant's notes"})
            airtable(endpoint, base, token, "PATCH", {"Notes": "a person's notes"})
            await page.goto(waiting["approvalUrl"])
            await page.screenshot(path=directory + "/pending.png", full_page=True)
            await page.click("button[value=approve]")
            await page.wait_for_selector("#conflicts")
            await page.screenshot(path=directory + "/conflicted.png", full_page=True)
            check(await page.inner_text("#status") == "conflicted", "a change since the plan is shown: conflicted")
            check("a person's notes" in await page.inner_text("#conflicts"), "naming what changed")
            check(await page.locator("#diff del").first.inner_text() == "\"a person's notes\"",
                  "the diff shows the record as it is now")
            check(airtable(endpoint, base, token).get("Notes") == "a person's notes", "nothing was written over it")
            await page.click("button[value=approve]")
            await page.wait_for_selector("#said")
            check(await page.inner_text("#status") == "applied", "approved again, it is made")
            check(airtable(endpoint, base, token).get("Notes") == "the assistant's notes", "as the person saw it")

            # A deletion: its whole row.
            deletion = tool(agent, "delete_project", {"project": PROJECT, "confirm": True})
            await page.goto(deletion["approvalUrl"])
            gone = await page.locator("#diff .gone").count()
            check(gone >= 3, f"a deletion's page shows its whole row ({gone} fields)")
            await page.screenshot(path=directory + "/deletion.png", full_page=True)
            counted = await page.inner_text("#diff")
            check(re.search(r"\b\d+ comments?\b", counted) is not None, "and counts the comments that go with it")

            # Another person, with the link: refused.
            theirs = await browser.new_context()
            other = await theirs.new_page()
            await other.goto(deletion["approvalUrl"])
            await other.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
            answer = {}
            other.on("response", lambda r: answer.setdefault("status", r.status) if "/approve/" in r.url and
                     r.request.method == "GET" and r.status != 302 else None)
            await other.click(f"button[value={OTHER}]")
            await other.wait_for_url(origin + "/approve/*")
            check(answer.get("status") == 403, f"another person is refused ({answer.get('status')})")
            check(await other.locator("button[value=approve]").count() == 0, "and sees no button")

            # CSRF and framing.
            forged = await page.request.post(deletion["approvalUrl"], form={"csrf": "guessed", "action": "approve"})
            check(forged.status == 403, f"a form without the page's CSRF token is refused ({forged.status})")
            headers = (await page.request.get(deletion["approvalUrl"])).headers
            check("frame-ancestors 'none'" in headers.get("content-security-policy", "")
                  and headers.get("x-frame-options") == "DENY", "the page cannot be framed")
            check(tool(agent, "approval_status", {"id": deletion["approval"]}).get("status") == "pending",
                  "the deletion still waits: nothing was deleted")

            # A client that can ask its person (PyPI's mcp, its elicitation callback): the page opened from the
            # call (URL mode), approved there, and the call answers with the write made.
            opened = []

            async def person(context, params):
                opened.append(params.url)
                await page.goto(params.url)
                await page.click("button[value=approve]")
                await page.wait_for_selector("#said")
                return types.ElicitResult(action="accept")

            async with create_mcp_http_client(headers={"Authorization": "Bearer " + agent}) as http:
                async with streamable_http_client(origin + "/mcp", http_client=http) as streams:
                    async with ClientSession(streams[0], streams[1], elicitation_callback=person) as session:
                        await session.initialize()
                        result = await session.call_tool(
                            "update_project", {"project": PROJECT, "notes": "approved from the call"})
            structured = result.structured_content or {}
            check(len(opened) == 1 and "/approve/apr" in opened[0], "the call sent the person to the page")
            check(structured.get("status") == "applied", f"and answered with the write made ({structured.get('status')})")
            check(airtable(endpoint, base, token).get("Notes") == "approved from the call", "the record holds it")
            await browser.close()
    finally:
        serve.terminate()
        fake.terminate()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("the approval page holds in a real browser")


asyncio.run(main())
