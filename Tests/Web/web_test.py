"""Drives two `marmot web` pages (Alice and Bob) in headless Chromium through selenium.

Usage: web_test.py <alice url> <bob url> <screenshot dir>. Run by scripts/web-test.sh (make test).
Checks: the gate refuses requests without the token, with a foreign Host or a foreign Origin; both
create accounts; Alice starts a chat by npub; Bob accepts the invitation; messages both ways with
the ✓ mark; the chat's protocol in the header and the row; an unread badge; a reload mid-chat
brings the state back; Bob sets his name and adds, sees connected and removes a second relay
(EXTRA_RELAY); a page on another origin cannot open a WebSocket to `marmot relay` (RELAY_PORT)
unless that relay was started with --allow-origin for it; a picture each way (issue 28): sent with 📎,
shown inline on the sender's page at once and on the receiver's after "Show", the bytes the same,
and `/attachment` refused without the token. Screenshots of each screen.
"""
import base64
import os
import re
import signal
import subprocess
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import struct
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = 40


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,860",
                 "--disable-gpu"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def http_status(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def websocket_status(url, token, origin):
    """The status line of a raw WebSocket upgrade request (101 means accepted)."""
    parts = urllib.parse.urlparse(url)
    path = "/ws" + (f"?token={token}" if token else "")
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append(f"Origin: {origin}")
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as connection:
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = connection.recv(200).decode(errors="replace").split("\r\n")[0]
    return int(status.split()[1])


def check_gate(url):
    parts = urllib.parse.urlparse(url)
    token = urllib.parse.parse_qs(parts.query)["token"][0]
    base = f"{parts.scheme}://{parts.netloc}/"
    origin = f"{parts.scheme}://{parts.netloc}"
    assert http_status(url) == 200, "the page with its token"
    assert http_status(base) == 403, "the page without a token must be refused"
    assert http_status(base + "?token=" + "0" * 64) == 403, "a wrong token must be refused"
    assert http_status(url, {"Host": f"evil.example:{parts.port}"}) == 403, "a foreign Host must be refused"
    assert websocket_status(url, token, origin) == 101, "the WebSocket with token and own Origin"
    assert websocket_status(url, None, origin) != 101, "a WebSocket without the token must be refused"
    assert websocket_status(url, token, "http://evil.example") != 101, "a foreign Origin must be refused"
    assert websocket_status(url, token, None) != 101, "a WebSocket without Origin must be refused"
    print("web_test: gate refuses no token, wrong token, foreign Host, foreign Origin")


SOCKET_SCRIPT = """
const url = arguments[0], done = arguments[arguments.length - 1];
let opened = false, finished = false;
const finish = (result) => { if (!finished) { finished = true; done(result); } };
const socket = new WebSocket(url);
socket.onopen = () => { opened = true; socket.send(JSON.stringify(["REQ", "origin-check", {"limit": 1}])); };
socket.onmessage = (message) => { if (JSON.parse(message.data)[0] === "EOSE") { socket.close(); finish("open"); } };
socket.onerror = () => { if (!opened) finish("refused"); };
socket.onclose = () => { if (!opened) finish("refused"); };
setTimeout(() => finish(opened ? "open without EOSE" : "timeout"), 10000);
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def relay_origin_check():
    """A page served from another origin (python's http.server on another port) runs
    `new WebSocket("ws://127.0.0.1:<relay port>")`: refused by the running relay (no --allow-origin),
    opened (REQ answered with EOSE) by a `marmot relay --allow-origin <that origin>`."""
    started = time.monotonic()
    site = tempfile.mkdtemp()
    with open(os.path.join(site, "index.html"), "w") as page:
        page.write("<!doctype html><title>elsewhere</title><p>a page on another origin")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", site],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = dict(os.environ, MARMOT_HOME=os.path.join(site, "home"))
    allowing = subprocess.Popen([os.environ["MARMOT_BIN"], "relay", "--port", "0", "--memory", "--allow-origin", origin],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    driver = browser()
    try:
        allowing_url = allowing.stdout.readline().strip()
        assert allowing_url.startswith("ws://127.0.0.1:"), f"marmot relay --allow-origin printed {allowing_url!r}"
        for _ in range(100):
            if http_status(origin + "/") == 200:
                break
            time.sleep(0.1)
        driver.get(origin + "/")
        assert driver.title == "elsewhere"
        driver.set_script_timeout(20)
        relay_url = f"ws://127.0.0.1:{os.environ['RELAY_PORT']}"
        refused = driver.execute_async_script(SOCKET_SCRIPT, relay_url)
        assert refused == "refused", f"a page on {origin} reached {relay_url}: {refused}"
        opened = driver.execute_async_script(SOCKET_SCRIPT, allowing_url)
        assert opened == "open", f"--allow-origin {origin}: the page's WebSocket to {allowing_url} gave {opened}"
        print(f"web_test: a page on another origin is refused by the relay, let in with --allow-origin "
              f"({time.monotonic() - started:.1f}s)")
    finally:
        driver.quit()
        server.terminate()
        allowing.terminate()
        server.wait()
        allowing.wait()


class Page:
    def __init__(self, name, url, shots):
        self.name, self.url, self.shots = name, url, shots
        self.driver = browser()
        self.driver.get(url)

    def wait(self, what, predicate, timeout=TIMEOUT):
        try:
            # Lists are rebuilt on every update: an element read mid-rebuild is stale, so poll again.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=[StaleElementReferenceException]).until(lambda d: predicate(d))
        except Exception:
            self.shot("timeout")
            raise AssertionError(f"{self.name}: timed out waiting for {what}")

    def screen(self, name):
        self.wait(f"screen {name}", lambda d: "shown" in d.find_element(By.ID, "screen-" + name).get_attribute("class"))

    def click(self, css):
        self.driver.find_element(By.CSS_SELECTOR, css).click()

    def type(self, element_id, text):
        field = self.driver.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def messages(self):
        return [m.text for m in self.driver.find_elements(By.CSS_SELECTOR, "#messages .message .content")]

    def shot(self, label):
        path = os.path.join(self.shots, f"{self.name}-{label}.png")
        self.driver.save_screenshot(path)
        return path


def relay_outage(alice, started):
    """The relay goes down: a message ends failed with Retry; the relay comes back: Retry gets ✓."""
    while "shown" not in alice.driver.find_element(By.ID, "screen-chatList").get_attribute("class"):
        alice.click("section.shown .back")
        time.sleep(0.2)
    next(row for row in alice.driver.find_elements(By.CSS_SELECTOR, "#chats .chat-row") if "Summit" not in row.text).click()
    alice.screen("chat")
    os.kill(int(os.environ["RELAY_PID"]), signal.SIGTERM)
    time.sleep(0.5)
    alice.type("composer", "Sent while the relay is down")
    alice.click("#send")
    failed = "#messages .message.mine .mark.failed"
    WebDriverWait(alice.driver, 90, poll_frequency=0.2).until(lambda d: d.find_elements(By.CSS_SELECTOR, failed))
    alice.shot("8-chat-failed")
    print(f"web_test: relay down, the message failed at {time.monotonic() - started:.1f}s")
    # The Relays page shows the relay failing, with the core's reason.
    back_to_chat_list(alice)
    alice.click("#relays-button")
    alice.screen("relays")
    alice.wait("relay failing", lambda d: list(relay_rows(alice).values()) == ["failing"])
    status = alice.driver.find_element(By.CSS_SELECTOR, "#relay-list .relay .status").text
    assert status.startswith("failing: ") and len(status) > len("failing: "), status
    alice.shot("8b-relays-failing")
    print(f"web_test: the Relays page says {status!r} at {time.monotonic() - started:.1f}s")
    back_to_chat_list(alice)
    next(row for row in alice.driver.find_elements(By.CSS_SELECTOR, "#chats .chat-row") if "Summit" not in row.text).click()
    alice.screen("chat")
    env = dict(os.environ, MARMOT_HOME=os.environ["RELAY_HOME"])
    relay = subprocess.Popen([os.environ["MARMOT_BIN"], "relay", "--port", os.environ["RELAY_PORT"], "--memory"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert relay.stdout.readline().startswith(b"ws://"), "the relay did not come back"
        # After a long outage the reconnect backoff is at its 30 s ceiling (a random wait of 15-30 s).
        alice.wait("the connection back", lambda d: d.find_element(By.ID, "status").text.startswith("1 of 1"), timeout=90)
        alice.click("#messages .message.mine .retry")
        WebDriverWait(alice.driver, 90, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: not d.find_elements(By.CSS_SELECTOR, failed)
            and len(d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .mark.sent"))
            == len(d.find_elements(By.CSS_SELECTOR, "#messages .message.mine")))
        alice.shot("9-chat-retried")
        print(f"web_test: relay back, Retry sent the message (✓) at {time.monotonic() - started:.1f}s")
    finally:
        relay.terminate()
        relay.wait()


def group_scenario(alice, bob, bob_npub, started):
    """Alice creates a named group with Bob from the New Group screen, Bob accepts, Alice renames it
    from Group Info (which lists both members, Alice as admin) and Bob's chat shows the new name."""
    for page in (alice, bob):
        while "shown" not in page.driver.find_element(By.ID, "screen-chatList").get_attribute("class"):
            page.click("section.shown .back")
            time.sleep(0.2)
    alice.click("#new-group-button")
    alice.screen("newGroup")
    alice.type("group-name", "Browser crew")
    alice.type("group-npubs", bob_npub)
    alice.shot("10-new-group")
    alice.click("#create-group")
    alice.screen("chat")
    alice.wait("group title", lambda d: d.find_element(By.ID, "chat-title").text == "Browser crew")
    bob.wait("group invitation", lambda d: d.find_elements(By.CSS_SELECTOR, "#invites .invite .accept"))
    bob.click("#invites .invite .accept")
    bob.screen("chat")
    alice.click("#group-info")
    alice.screen("groupInfo")
    alice.wait("two members", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#members .member")) == 2)
    assert "admin (you)" in alice.driver.find_element(By.ID, "members").text
    alice.shot("11-group-info")
    alice.type("rename", "Summit")
    alice.click("#rename-group")
    bob.wait("renamed group", lambda d: d.find_element(By.ID, "chat-title").text == "Summit")
    bob.shot("12-group-renamed")
    print(f"web_test: group created, accepted, renamed at {time.monotonic() - started:.1f}s")
    group_picture_scenario(alice, bob, started)


def group_picture_scenario(alice, bob, started):
    """Alice sets the group's picture from Group Info; Bob's page draws it in the chat header and,
    back on the chat list, in the group's row, with the bytes Alice chose; `/chat-image` without
    the token is refused."""
    data = png(96, 96, 90)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "group.png")
        with open(path, "wb") as out:
            out.write(data)
        alice.driver.find_element(By.ID, "group-image").send_keys(path)
        drawn = "const i = document.querySelector(arguments[0]); return !!i && !i.classList.contains('missing') && i.complete && i.naturalWidth === 96;"
        bob.wait("group picture in the header", lambda d: d.execute_script(drawn, "#chat-avatar"))
        src = bob.driver.find_element(By.ID, "chat-avatar").get_attribute("src")
        with urllib.request.urlopen(src, timeout=10) as response:
            assert response.read() == data, "the page's group picture is not the file set"
            assert response.headers["Content-Type"] == "image/png"
        stripped = re.sub(r"token=[0-9a-f]+", "token=", src)
        assert http_status(stripped) == 403, f"/chat-image without the token: {http_status(stripped)}"
        bob.wait("system line", lambda d: any("changed the group picture" in m for m in bob.messages()))
        bob.shot("12b-group-picture-header")
        back_to_chat_list(bob)
        bob.wait("group picture in the chat list", lambda d: d.execute_script(drawn, "#chats .chat-row[data-image=available] img.avatar"))
        bob.shot("12c-group-picture-chat-list")
        back_to_chat_list(alice)
        alice.wait("alice's row too", lambda d: d.execute_script(drawn, "#chats .chat-row[data-image=available] img.avatar"))
        alice.shot("12d-group-picture-admin-list")
    print(f"web_test: group picture set and drawn on both sides at {time.monotonic() - started:.1f}s")


def png(width, height, seed):
    """A real PNG (a colour gradient) that Chromium draws: what the picture test sends."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(((x * 255 // width + seed) % 256, (y * 255 // height) % 256, (seed * 3) % 256))
                           for x in range(width))
        for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def send_picture(page, path):
    """Chooses `path` in the page's hidden 📎 file input (as a user's file dialog would)."""
    field = page.driver.find_element(By.ID, "attach")
    page.driver.execute_script("arguments[0].style.display = 'block';", field)
    field.send_keys(path)


def picture_scenario(alice, bob, started, scratch):
    """A picture each way: the sender's page shows it at once, the receiver's after Show; the bytes
    served to the page are the file's; `/attachment` without the token is refused."""
    for sender, receiver, seed in ((alice, bob, 40), (bob, alice, 160)):
        data = png(96, 64, seed)
        path = os.path.join(scratch, f"{sender.name}.png")
        with open(path, "wb") as out:
            out.write(data)
        sender.type("composer", f"picture from {sender.name}")
        send_picture(sender, path)
        own = "#messages .message.mine .attachment.available img"
        sender.wait("own picture shown", lambda d: d.execute_script(
            "const i = document.querySelector(arguments[0]); return i && i.complete && i.naturalWidth === 96;", own))
        sender.wait("✓ on the picture", lambda d: d.execute_script(
            "const a = [...document.querySelectorAll('#messages .message.mine')].pop(); return a && a.querySelector('.mark.sent') !== null;"))
        theirs = "#messages .message.theirs .attachment"
        receiver.wait("the picture's message", lambda d: any(
            f"{sender.name}.png" in e.text for e in d.find_elements(By.CSS_SELECTOR, theirs)))
        show = [b for b in receiver.driver.find_elements(By.CSS_SELECTOR, theirs + " .download")
                if f"{sender.name}.png" in b.find_element(By.XPATH, "..").text]
        assert show, f"{receiver.name}: no Show button for {sender.name}.png"
        show[-1].click()
        shown = theirs + ".available img"
        receiver.wait("the picture drawn", lambda d: d.execute_script(
            "return [...document.querySelectorAll(arguments[0])].some(i => i.complete && i.naturalWidth === 96 && i.alt === arguments[1]);",
            shown, f"{sender.name}.png"))
        src = receiver.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].find(i => i.alt === arguments[1]).src;", shown, f"{sender.name}.png")
        with urllib.request.urlopen(src, timeout=10) as response:
            assert response.read() == data, "the page's picture is not the file sent"
            assert response.headers["Content-Type"] == "image/png"
        stripped = re.sub(r"token=[0-9a-f]+", "token=", src)
        assert http_status(stripped) == 403, f"/attachment without the token: {http_status(stripped)}"
        sender.shot(f"5c-picture-sent-by-{sender.name}")
        receiver.shot(f"5d-picture-from-{sender.name}")
    print(f"web_test: a picture each way, shown inline, bytes checked at {time.monotonic() - started:.1f}s")


def back_to_chat_list(page):
    while "shown" not in page.driver.find_element(By.ID, "screen-chatList").get_attribute("class"):
        page.click("section.shown .back")
        time.sleep(0.2)


def relay_rows(page):
    """Each relay's state as the core gives it (the class of its status text, e.g. "connected"),
    whatever the "last event … ago" part of the text says."""
    return {row.get_attribute("data-url"): relay_state(row.find_element(By.CSS_SELECTOR, ".status"))
            for row in page.driver.find_elements(By.CSS_SELECTOR, "#relay-list .relay")}


def relay_state(status):
    text = status.text
    classes = status.get_attribute("class").split()
    state = next((c for c in classes if c != "status"), "")
    assert text.startswith(state), f"the status text {text!r} names the state {state!r}"
    return state


def settings_scenario(bob, started):
    """Bob names himself on the Your name page (an empty name is refused with the core's message), then
    on the Relays page adds the second relay, sees it connected, removes it, and sees the core refuse
    to remove his last relay."""
    back_to_chat_list(bob)
    bob.click("#profile-button")
    bob.screen("profile")
    bob.wait("no name yet", lambda d: d.find_element(By.ID, "profile-name").text == "not set")
    bob.click("#save-name")
    bob.wait("empty name refused", lambda d: d.find_element(By.ID, "profile-error").text == "Enter a name")
    bob.type("profile-name-input", "Bob Browser")
    bob.click("#save-name")
    bob.wait("name saved", lambda d: d.find_element(By.ID, "profile-name").text == "Bob Browser")
    assert bob.driver.find_element(By.ID, "profile-error").text == ""
    bob.shot("13-profile")
    print(f"web_test: name saved and shown at {time.monotonic() - started:.1f}s")

    extra = os.environ.get("EXTRA_RELAY")
    back_to_chat_list(bob)
    bob.click("#relays-button")
    bob.screen("relays")
    bob.wait("one relay connected", lambda d: list(relay_rows(bob).values()) == ["connected"])
    home = next(iter(relay_rows(bob)))
    bob.type("relay-url", "http://not-a-relay")
    bob.click("#add-relay")
    bob.wait("bad URL refused", lambda d: d.find_element(By.ID, "relays-error").text.startswith("Not a relay address"))
    if extra:
        bob.type("relay-url", extra)
        bob.click("#add-relay")
        bob.wait("second relay connected", lambda d: relay_rows(bob) == {home: "connected", extra: "connected"})
        assert bob.driver.find_element(By.ID, "relays-error").text == ""
        bob.shot("14-relays")
        bob.click(f'#relay-list .relay[data-url="{extra}"] .remove')
        bob.wait("second relay removed", lambda d: list(relay_rows(bob)) == [home])
    bob.click("#relay-list .relay .remove")
    bob.wait("last relay kept", lambda d: d.find_element(By.ID, "relays-error").text == "Keep at least one relay")
    assert list(relay_rows(bob)) == [home]
    back_to_chat_list(bob)
    print(f"web_test: relays added (connected), removed, last one kept at {time.monotonic() - started:.1f}s")


def device_rows(page):
    """Each device row's status class ("this", "linked" or "waiting") by its id ({} mid-rebuild)."""
    try:
        return {row.get_attribute("data-device-id"): next(
                    c for c in row.find_element(By.CSS_SELECTOR, ".status").get_attribute("class").split() if c != "status")
                for row in page.driver.find_elements(By.CSS_SELECTOR, "#device-list .device")}
    except StaleElementReferenceException:
        return {}


def open_devices(page):
    back_to_chat_list(page)
    page.click("#devices-button")
    page.screen("devices")
    page.wait("the device list", lambda d: d.find_element(By.ID, "devices-status").text.endswith("waiting"))


def notes_scenario(bob, started):
    """Issue 29: Bob opens Notes from the row at the top of the chat list, writes a note (✓), sees
    Notes first in the list, and his Devices page lists this device with the history notice. With a
    second installation (BOB_PHONE: another `marmot web` with its own home), the phone imports Bob's
    key, Bob links it from Devices, and each reads the other's notes; both Devices pages are shot."""
    back_to_chat_list(bob)
    bob.wait("the Notes row before Notes exists", lambda d: d.find_element(By.ID, "notes-entry").is_displayed())
    bob.click("#notes-entry")
    bob.screen("chat")
    bob.wait("Notes open", lambda d: d.find_element(By.ID, "chat-title").text == "Notes")
    assert "earlier notes are not transferred" in bob.driver.find_element(By.ID, "chat-notice").text
    assert not bob.driver.find_element(By.ID, "group-info").is_displayed()
    bob.type("composer", "Note from the browser")
    bob.click("#send")
    bob.wait("the note sent", lambda d: "Note from the browser" in bob.messages()
             and d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .mark.sent"))
    bob.shot("15-notes")
    back_to_chat_list(bob)
    bob.wait("Notes first", lambda d: "notes" in d.find_element(By.CSS_SELECTOR, "#chats .chat-row").get_attribute("class"))
    assert bob.driver.find_element(By.CSS_SELECTOR, "#chats .chat-row .name").text.endswith("Notes")
    assert not bob.driver.find_element(By.ID, "notes-entry").is_displayed()
    bob.shot("16-chat-list-notes")
    open_devices(bob)
    assert list(device_rows(bob).values()) == ["this"], device_rows(bob)
    assert "earlier notes are not transferred" in bob.driver.find_element(By.ID, "history-notice").text
    bob.shot("17-devices")
    print(f"web_test: Notes written, listed first; Devices lists this device at {time.monotonic() - started:.1f}s")

    phone_url = os.environ.get("BOB_PHONE")
    if not phone_url:
        return
    back_to_chat_list(bob)
    bob.click("#export-key")
    bob.driver.switch_to.alert.accept()
    bob.wait("bob's exported nsec", lambda d: d.find_element(By.ID, "exported-nsec").text.startswith("nsec1"))
    nsec = bob.driver.find_element(By.ID, "exported-nsec").text
    phone = Page("bob-phone", phone_url, bob.shots)
    try:
        phone.screen("login")
        phone.type("import-nsec", nsec)
        phone.click("#import-button")
        phone.screen("chatList")
        phone.wait("the phone's key package", lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-key-package") == "true")
        assert phone.driver.find_element(By.ID, "my-npub").text == bob.driver.find_element(By.ID, "my-npub").text
        open_devices(bob)
        deadline = time.monotonic() + TIMEOUT
        while "waiting" not in device_rows(bob).values():
            assert time.monotonic() < deadline, f"the phone never waited to be linked: {device_rows(bob)}"
            bob.click("#refresh-devices")
            time.sleep(1)
        bob.shot("18-devices-phone-waiting")
        bob.click("#device-list .device .link")
        bob.driver.switch_to.alert.accept()
        bob.wait("the phone linked", lambda d: sorted(device_rows(bob).values()) == ["linked", "this"])
        bob.shot("19-devices-phone-linked")
        phone.wait("Notes on the phone", lambda d: d.find_elements(By.CSS_SELECTOR, "#chats .chat-row.notes"))
        phone.click("#chats .chat-row.notes")
        phone.screen("chat")
        phone.type("composer", "Note from the phone")
        phone.click("#send")
        back_to_chat_list(bob)
        bob.click("#chats .chat-row.notes")
        bob.screen("chat")
        bob.wait("the phone's note", lambda d: "Note from the phone" in bob.messages())
        bob.type("composer", "Back to the phone")
        bob.click("#send")
        phone.wait("bob's note on the phone", lambda d: "Back to the phone" in phone.messages())
        # No history transfer: the note written before the link is not on the phone.
        assert "Note from the browser" not in phone.messages()
        phone.shot("15-notes")
        bob.shot("20-notes-both-devices")
        open_devices(phone)
        # Itself marked, Bob's first installation linked. (The core today also offers the first
        # installation's own key package here as waiting: a core defect, not the page's to hide.)
        phone.wait("the phone's own list", lambda d: {"linked", "this"} <= set(device_rows(phone).values()))
        phone.shot("17-devices")
        print(f"web_test: a second installation linked from Devices, notes both ways at {time.monotonic() - started:.1f}s")
    finally:
        phone.driver.quit()
    back_to_chat_list(bob)


def main():
    alice_url, bob_url, shots = sys.argv[1:4]
    os.makedirs(shots, exist_ok=True)
    started = time.monotonic()
    check_gate(alice_url)
    if os.environ.get("RELAY_PORT"):
        relay_origin_check()
    alice, bob = Page("alice", alice_url, shots), Page("bob", bob_url, shots)
    try:
        for page in (alice, bob):
            page.screen("login")
            page.shot("1-login")
            page.click("#create-account")
            page.screen("chatList")
            page.wait("npub", lambda d: d.find_element(By.ID, "my-npub").text.startswith("npub1"))
            page.wait("key package", lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-key-package") == "true")
        print(f"web_test: two accounts in {time.monotonic() - started:.1f}s")
        alice.shot("2-chat-list-empty")
        bob_npub = bob.driver.find_element(By.ID, "my-npub").text

        alice.click("#new-chat-button")
        alice.screen("newChat")
        alice.type("peer-npub", bob_npub)
        alice.shot("3-new-chat")
        alice.click("#start-chat")
        alice.screen("chat")

        bob.wait("invitation", lambda d: d.find_elements(By.CSS_SELECTOR, "#invites .invite .accept"))
        bob.shot("4-invitation")
        bob.click("#invites .invite .accept")
        bob.screen("chat")

        alice.type("composer", "Hi Bob, from the browser")
        alice.click("#send")
        bob.wait("alice's message", lambda d: "Hi Bob, from the browser" in bob.messages())
        alice.wait("✓ on alice's message", lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .mark.sent"))
        bob.type("composer", "Hi Alice!")
        bob.click("#send")
        alice.wait("bob's message", lambda d: "Hi Alice!" in alice.messages())
        bob.wait("✓ on bob's message", lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .mark.sent"))
        alice.shot("5-chat")
        bob.shot("5-chat")
        # Issue 18: the header shows the protocol the chat speaks (both sides are ours: v2).
        for page in (alice, bob):
            page.wait("protocol in the header", lambda d: d.find_element(By.ID, "chat-protocol").text == "Marmot v2")
        print(f"web_test: invitation accepted, messages both ways with ✓ at {time.monotonic() - started:.1f}s")

        # Issue 25: Bob reacts 👍 to Alice's message; both pages show "👍 1" under it (Bob's marked as
        # his); clicking his reaction takes it back on both pages.
        reactions = "#messages .message.theirs .reactions button"
        bob.click("#messages .message.theirs .actions .react")
        bob.wait("bob's reaction", lambda d: [b.text for b in d.find_elements(By.CSS_SELECTOR, reactions)] == ["👍 1"])
        assert bob.driver.find_element(By.CSS_SELECTOR, reactions).get_attribute("class") == "mine"
        alice.wait("the reaction under alice's message", lambda d: [
            b.text for b in d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .reactions button")] == ["👍 1"])
        alice.shot("5b-reaction")
        bob.click(reactions)
        alice.wait("reaction taken back", lambda d: not d.find_elements(By.CSS_SELECTOR, "#messages .message.mine .reactions button"))
        print(f"web_test: reaction shown and taken back at {time.monotonic() - started:.1f}s")
        with tempfile.TemporaryDirectory() as scratch:
            picture_scenario(alice, bob, started, scratch)

        alice.click("#screen-chat .back")
        alice.screen("chatList")
        bob.type("composer", "Are you there?")
        bob.click("#send")
        alice.wait("unread badge", lambda d: [b.text for b in d.find_elements(By.CSS_SELECTOR, "#chats .chat-row .badge")] == ["1"])
        alice.shot("6-chat-list-unread")
        assert [p.text for p in alice.driver.find_elements(By.CSS_SELECTOR, "#chats .chat-row .protocol")] == ["Marmot v2"]

        # Reload mid-chat: the page starts from the server's state again.
        bob.driver.refresh()
        bob.screen("chat")
        bob.wait("messages after reload", lambda d: [m for m in bob.messages() if not m.startswith("picture from")][-3:]
                 == ["Hi Bob, from the browser", "Hi Alice!", "Are you there?"])
        # The pictures too, each shown again once its bytes are fetched from this server.
        bob.wait("pictures after reload", lambda d: d.execute_script(
            "return [...document.querySelectorAll('#messages .attachment.available img')].filter(i => i.complete && i.naturalWidth === 96).length === 2;"))
        bob.shot("7-chat-after-reload")
        alice.click("#chats .chat-row")
        alice.screen("chat")
        alice.wait("bob's last message", lambda d: "Are you there?" in alice.messages())
        rev = int(alice.driver.find_element(By.TAG_NAME, "body").get_attribute("data-rev"))
        assert rev > 0
        # The nsec never reached the page unasked.
        for page in (alice, bob):
            assert not re.search(r"nsec1[02-9ac-hj-np-z]{50}", page.driver.page_source), f"{page.name}: nsec in the page"
        # Export: nothing without the confirmation, the nsec with it.
        alice.click("#screen-chat .back")
        alice.screen("chatList")
        alice.click("#export-key")
        alice.driver.switch_to.alert.dismiss()
        time.sleep(0.3)
        assert alice.driver.find_element(By.ID, "exported-nsec").text == "", "export without confirmation"
        alice.click("#export-key")
        alice.driver.switch_to.alert.accept()
        alice.wait("exported nsec", lambda d: d.find_element(By.ID, "exported-nsec").text.startswith("nsec1"))
        print(f"web_test: unread badge, reload restores the chat, export needs a confirmation at {time.monotonic() - started:.1f}s")
        group_scenario(alice, bob, bob_npub, started)
        settings_scenario(bob, started)
        notes_scenario(bob, started)
        if os.environ.get("RELAY_PID"):
            relay_outage(alice, started)
        print(f"web_test: ok in {time.monotonic() - started:.1f}s")
        print(f"web_test: screenshots in {shots}")
    finally:
        alice.driver.quit()
        bob.driver.quit()


if __name__ == "__main__":
    main()
