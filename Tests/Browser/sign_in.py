"""serve's sign-in in a real browser, with a real MCP client.

Starts the built fake Airtable (with its OAuth) and `tracker serve`, then:
- PyPI's `mcp` client signs in with its OAuthClientProvider (discovery, Dynamic Client Registration, PKCE), its
  redirect handler driving headless Chromium through serve's consent page (Allow) and the fake's grant page, and
  calls a tool as the person;
- the consent page's safety: a hostile client name is inert text, a page that frames it is refused, a form posted
  without the page's CSRF token or from another browser is refused, the callback replayed is refused;
- nothing at rest holds a token: every file in serve's state directory is scanned for every token issued.

Usage: python3 sign_in.py BUILD_DIR   (BUILD_DIR holds `tracker` and `fake-airtable`). Exits 0 when every check holds.
"""

import asyncio
import json
import os
import re
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from playwright.async_api import async_playwright

from serving import CHROMIUM, PERSON, check, failures, free_port, start_fake, start_serve


class Redirects(BaseHTTPRequestHandler):
    """The MCP client's redirect URI: takes the code and state the browser brings."""
    received = []

    def do_GET(self):
        parsed = urllib.parse.urlparse(self.path)
        if parsed.path == "/callback":
            Redirects.received.append(dict(urllib.parse.parse_qsl(parsed.query)))
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<p id=done>Signed in. You may close this window.</p>")

    def log_message(self, *args):
        pass


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull):
        self.client = client_info


async def main():
    directory = tempfile.mkdtemp(prefix="tracker-browser-")
    fake, endpoint, base, token = start_fake()
    serve, port, log = start_serve(directory, endpoint, base, token)
    origin = f"http://127.0.0.1:{port}"
    redirect_port = free_port()
    redirects = HTTPServer(("127.0.0.1", redirect_port), Redirects)
    threading.Thread(target=redirects.serve_forever, daemon=True).start()
    redirect_uri = f"http://127.0.0.1:{redirect_port}/callback"
    secrets_extra = []
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                       args=["--no-sandbox"])
            page = await browser.new_page()
            dialogs = []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), asyncio.ensure_future(dialog.dismiss())))
            consent_seen = {}

            async def redirect_handler(url):
                # The person's browser: serve's consent page, Allow, Airtable's grant page, back to the client.
                await page.goto(url)
                consent_seen["title"] = await page.title()
                consent_seen["client"] = await page.inner_text("#client-name")
                consent_seen["host"] = await page.inner_text("#redirect-host")
                await page.click("button[value=allow]")
                await page.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
                await page.click(f"button[value={PERSON}]")
                await page.wait_for_url(re.compile(re.escape(redirect_uri) + ".*"))

            async def callback_handler():
                query = Redirects.received[-1]
                if "code" not in query:
                    print("the client was sent back without a code:", query, flush=True)
                return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

            storage = Memory()
            provider = OAuthClientProvider(
                server_url=origin + "/mcp",
                client_metadata=OAuthClientMetadata(
                    client_name="Browser test <i>client</i>", redirect_uris=[redirect_uri],
                    grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                    token_endpoint_auth_method="none"),
                storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)
            async with create_mcp_http_client(auth=provider) as http:
                async with streamable_http_client(origin + "/mcp", http_client=http) as streams:
                    read, write = streams[0], streams[1]
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        result = await session.call_tool("list_projects", {"limit": 2})
                        structured = result.structured_content or {}
                        check(structured.get("total") == 16, "the MCP client signed in and listed the base's 16 projects")
            check(consent_seen.get("client") == "Browser test <i>client</i>",
                  "the consent page shows the client's name as text: " + repr(consent_seen.get("client")))
            check(consent_seen.get("host") == f"127.0.0.1:{redirect_port}", "and the host it returns to")
            check(storage.tokens is not None and storage.tokens.refresh_token, "the client holds serve's tokens")
            log.seek(0)
            lines = [json.loads(line) for line in log.read().splitlines() if line.startswith("{")]
            called = [line for line in lines if line.get("tool") == "list_projects"]
            check(called and called[-1].get("user") == PERSON, "the log names the person who called")
            check(called and called[-1].get("client") == storage.client.client_id, "and the client")

            # A hostile client name: inert on the consent page (no script runs, no element made).
            hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
            registered = json.loads(urllib.request.urlopen(urllib.request.Request(
                origin + "/register", data=json.dumps({"client_name": hostile, "redirect_uris": [redirect_uri]}).encode(),
                headers={"Content-Type": "application/json"})).read())
            query = urllib.parse.urlencode({
                "response_type": "code", "client_id": registered["client_id"], "redirect_uri": redirect_uri,
                "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "code_challenge_method": "S256"})
            await page.goto(origin + "/authorize?" + query)
            await page.wait_for_timeout(300)
            check(not dialogs, "no script of the hostile name ran")
            check(await page.locator("#client-name img, #client-name script").count() == 0, "it made no element")
            check(await page.inner_text("#client-name") == hostile, "it is shown as the text it is")

            # Framing refused: a page of another origin that frames the consent page gets nothing.
            framer_port = free_port()
            frame_html = f'<iframe id="f" src="{origin}/authorize?{query}"></iframe>'.encode()

            class Framer(BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    self.wfile.write(frame_html)

                def log_message(self, *args):
                    pass

            framer = HTTPServer(("127.0.0.1", framer_port), Framer)
            threading.Thread(target=framer.serve_forever, daemon=True).start()
            await page.goto(f"http://127.0.0.1:{framer_port}/")
            await page.wait_for_timeout(800)
            frame = page.frame_locator("#f")
            check(await frame.locator("button[value=allow]").count() == 0, "the consent page cannot be framed")
            framer.shutdown()

            # CSRF: the form posted without the page's token, or from a browser that never saw the page.
            await page.goto(origin + "/authorize?" + query)
            request_id = await page.get_attribute("input[name=request]", "value")
            forged = urllib.parse.urlencode({"request": request_id, "csrf": "guessed", "decision": "allow"}).encode()
            other = await browser.new_page()
            answer = await other.request.post(origin + "/authorize", data=forged,
                                              headers={"Content-Type": "application/x-www-form-urlencoded"},
                                              max_redirects=0)
            check(answer.status == 400, f"a decision without the page's CSRF token is refused ({answer.status})")
            # /account: signed in through Airtable the same way; a token for an agent, shown once, revocable.
            account = await browser.new_page()
            await account.goto(origin + "/account")
            await account.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
            await account.click(f"button[value={PERSON}]")
            await account.wait_for_url(origin + "/account*")
            check(await account.inner_text("#person") == PERSON, "/account names the person signed in")
            check(await account.locator("button[value=revoke]").count() >= 1, "and lists their grants with Revoke")
            await account.click("button[value=new-token]")
            await account.wait_for_url(re.compile(r".*/oauth2/v1/authorize.*"))
            await account.click(f"button[value={PERSON}]")
            await account.wait_for_selector("#new-token")
            agent = await account.inner_text("#new-token")
            listing = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "list_projects", "arguments": {"limit": 1},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()

            def call(token):
                request = urllib.request.Request(origin + "/mcp", data=listing, headers={
                    "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                    "Authorization": "Bearer " + token})
                try:
                    return urllib.request.urlopen(request).status
                except urllib.error.HTTPError as error:
                    return error.code

            check(call(agent) == 200, "the agent's token made on /account calls the tools as the person")
            secrets_extra = [agent]
            await account.goto(origin + "/account")
            check(await account.locator("#new-token").count() == 0, "the token is shown once only")
            before = await account.locator("button[value=revoke]").count()
            await account.locator("tr", has_text="An agent's token").locator("button[value=revoke]").click()
            await account.wait_for_url(origin + "/account")
            check(await account.locator("button[value=revoke]").count() == before - 1, "Revoke ends the grant")
            check(call(agent) == 401, "and the agent's token is refused at once")
            await browser.close()

        # Nothing at rest reveals a token: every file serve wrote, scanned for every token issued.
        secrets_issued = [storage.tokens.access_token, storage.tokens.refresh_token] + secrets_extra
        written = ""
        for root, _, files in os.walk(directory):
            for name in files:
                if name != "Secrets.json":
                    with open(os.path.join(root, name), "rb") as f:
                        written += f.read().decode("utf-8", "replace")
        check("oaaFAKE" not in written and "oarFAKE" not in written, "no Airtable token at rest or in the log")
        check(not any(secret in written for secret in secrets_issued), "no token of serve's at rest or in the log")
    finally:
        serve.terminate()
        fake.terminate()
        redirects.shutdown()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("the sign-in holds in a real browser")


asyncio.run(main())
