/// The single page of `marmot web`: HTML, CSS and plain JavaScript, shipped inside the binary.
///
/// A renderer only: it shows `AppState` and sends `AppAction`s. It keeps the manager's rules (seed
/// 000, Revision Counter): `accountCreated` is handled before the rev check, the next rev is applied,
/// stale revs are dropped, a gap asks the server for the state. Inputs are persistent elements and
/// only lists are rebuilt, so typing survives updates. Text is set with `textContent` only (no HTML
/// from data), so a hostile message cannot inject markup.
enum WebPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marmot</title>
<style>
*{box-sizing:border-box} body{margin:0;font:15px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;background:#eef1f5;color:#1b1f24}
header{display:flex;align-items:center;gap:10px;padding:10px 16px;background:#2d3e50;color:#fff}
header h1{font-size:18px;margin:0;flex:1} header .status{font-size:12px;opacity:.85}
main{max-width:720px;margin:0 auto;padding:16px} section{display:none} section.shown{display:block}
.card{background:#fff;border-radius:10px;padding:16px;margin-bottom:12px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
button{font:inherit;padding:7px 14px;border-radius:8px;border:1px solid #2d6cdf;background:#2d6cdf;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2d6cdf} button:disabled{opacity:.5;cursor:default}
input{font:inherit;padding:8px;border:1px solid #c5ccd6;border-radius:8px;width:100%}
.row{display:flex;gap:8px;align-items:center} .row input{flex:1}
.attachment{margin:4px 0} .attachment .file{font-size:13px;opacity:.85} .attachment a.save{font-size:12px;margin-left:6px}
label.attach{cursor:pointer;padding:7px 10px;border:1px solid #c5ccd6;border-radius:8px;background:#fff}
.muted{color:#6a7380;font-size:13px} .mono{font-family:ui-monospace,monospace;word-break:break-all}
.chat-row{display:flex;align-items:center;gap:10px;padding:10px;border-bottom:1px solid #edf0f3;cursor:pointer}
.avatar{width:36px;height:36px;border-radius:50%;object-fit:cover;background:#dfe6ee;flex:none}
.avatar.missing{display:none}
.chat-row:hover{background:#f5f8fc} .chat-row .text{flex:1;min-width:0}
.chat-row .name{font-weight:600} .chat-row .preview{color:#6a7380;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.protocol{font-size:11px;color:#6a7380;border:1px solid #d3d9e0;border-radius:6px;padding:0 5px;white-space:nowrap}
.badge{background:#2d6cdf;color:#fff;border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600}
.invite{display:flex;align-items:center;gap:8px;padding:10px;background:#fff8e1;border-radius:8px;margin-bottom:8px}
.invite .title{flex:1}
#messages{height:55vh;overflow-y:auto;display:flex;flex-direction:column;gap:6px;padding:8px;background:#f7f9fb;border-radius:8px}
.message{max-width:75%;padding:7px 10px;border-radius:12px;background:#fff;box-shadow:0 1px 1px rgba(0,0,0,.06)}
.message.mine{align-self:flex-end;background:#d8e6ff} .message.system{align-self:center;background:none;box-shadow:none;color:#6a7380;font-size:13px}
.message .meta{font-size:11px;color:#6a7380;text-align:right} .message .mark.failed{color:#c62828}
.message .quote{font-size:12px;color:#6a7380;border-left:3px solid #b0b8c4;padding-left:6px;margin-bottom:4px}
.message.mention{box-shadow:0 0 0 2px #f2c94c} .message .reactions button{font-size:12px;margin-right:4px;padding:1px 8px;border:1px solid #ccd;background:#fff;color:#223;border-radius:10px}
.message .reactions button.mine{background:#d8e6ff;border-color:#7a9fe0} .message .actions button{font-size:11px;margin-left:2px;padding:1px 5px;background:none;color:#2a62c9;border:none}
.message button{padding:2px 8px;font-size:12px;margin-left:6px}
#toast{display:none;position:fixed;bottom:16px;left:50%;transform:translateX(-50%);background:#333;color:#fff;padding:10px 16px;border-radius:8px}
#toast.shown{display:flex;gap:10px;align-items:center} #notice{display:none} #notice.shown{display:block}
.relay{padding:8px 0;border-bottom:1px solid #edf0f3} .relay .mono{flex:1} .relay .connected{color:#2e7d32;font-weight:600} .relay .failing{color:#c62828}
.error{color:#c62828;margin:8px 0 0}
.chat-row.notes .name::before{content:"✎ ";color:#2d6cdf} .device{padding:8px 0;border-bottom:1px solid #edf0f3}
.device .name{font-weight:600} .device .status.this{color:#2e7d32;font-weight:600} .device .status.waiting{color:#b26a00;font-weight:600}
</style></head>
<body>
<header><h1 id="title">Marmot</h1><span class="status" id="status">Connecting…</span></header>
<main>
<div class="card" id="notice"></div>
<section id="screen-login">
 <div class="card"><h2>Welcome to Marmot</h2><p class="muted">End-to-end encrypted chats (MLS) over Nostr relays.</p>
  <button id="create-account">Create account</button></div>
 <div class="card"><h3>Import an account</h3><div class="row"><input id="import-nsec" type="password" autocomplete="off" placeholder="nsec1…"><button id="import-button" class="secondary">Import</button></div></div>
 <p class="muted" id="login-busy"></p>
</section>
<section id="screen-chatList">
 <div class="card"><div class="row"><div style="flex:1"><div class="muted">Your npub</div><div class="mono" id="my-npub"></div></div>
  <button id="new-chat-button">New chat</button><button id="new-group-button" class="secondary">New group</button></div>
  <div class="row" style="margin-top:8px"><button id="profile-button" class="secondary">Your name</button><button id="relays-button" class="secondary">Relays</button>
  <button id="devices-button" class="secondary">Devices</button>
  <button id="export-key" class="secondary">Export key</button><button id="logout" class="secondary">Log out</button></div>
  <div class="mono" id="exported-nsec"></div></div>
 <div id="invites"></div>
 <div class="card" style="padding:0"><div class="chat-row notes" id="notes-entry"><div class="text"><div class="name">Notes</div>
  <div class="preview">Notes to self on all your devices</div></div></div><div id="chats"></div><p class="muted" id="no-chats" style="padding:12px">No chats yet.</p></div>
</section>
<section id="screen-newChat">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0">New chat</h2></div>
  <p class="muted">Paste the npub of the person you want to write to.</p>
  <div class="row"><input id="peer-npub" autocomplete="off" placeholder="npub1…"><button id="start-chat">Start chat</button></div>
  <p class="muted" id="new-chat-busy"></p></div>
</section>
<section id="screen-newGroup">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0">New group</h2></div>
  <div class="row"><input id="group-name" autocomplete="off" placeholder="Group name"></div>
  <div class="row" style="margin-top:8px"><input id="group-npubs" autocomplete="off" placeholder="npub1… npub1… (space or comma separated)"><button id="create-group">Create</button></div>
  <p class="muted" id="new-group-busy"></p></div>
</section>
<section id="screen-groupInfo">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0;flex:1" id="group-title"></h2></div>
  <div id="members" style="margin-top:10px"></div>
  <div id="group-manage">
   <div class="row" style="margin-top:10px"><input id="add-npub" autocomplete="off" placeholder="npub1… to add"><button id="add-member">Add</button></div>
   <div class="row" style="margin-top:8px"><input id="rename" autocomplete="off" placeholder="New name"><button id="rename-group" class="secondary">Rename</button></div>
   <div class="row" style="margin-top:8px"><label class="secondary" style="flex:1">Group picture: <input id="group-image" type="file" accept="image/png,image/jpeg,image/gif,image/webp"></label><button id="clear-group-image" class="secondary">Remove picture</button></div>
   <div class="row" style="margin-top:8px"><select id="retention"><option value="0">Messages are kept</option><option value="3600">Disappear after 1 hour</option><option value="86400">Disappear after 1 day</option><option value="604800">Disappear after 1 week</option></select><button id="set-retention" class="secondary">Set</button><button id="disband-group" class="secondary">Close group for everyone</button></div>
  </div>
  <div class="row" style="margin-top:10px"><button id="leave-group" class="secondary">Leave group</button></div></div>
</section>
<section id="screen-relays">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0;flex:1">Relays</h2><span class="muted" id="relays-status"></span></div>
  <div id="relay-list" style="margin-top:10px"></div>
  <div class="row" style="margin-top:10px"><input id="relay-url" autocomplete="off" placeholder="wss://relay.example.com"><button id="add-relay">Add</button></div>
  <p class="error" id="relays-error"></p>
  <h3>Blossom servers</h3><p class="muted" id="blossom-note"></p>
  <div id="blossom-list"></div>
  <div class="row" style="margin-top:10px"><input id="blossom-url" autocomplete="off" placeholder="https://blossom.example.com"><button id="add-blossom">Add</button></div>
  <p class="error" id="blossom-error"></p></div>
</section>
<section id="screen-profile">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0">Your name</h2></div>
  <p class="muted">People see this name instead of your npub in their chats.</p>
  <p>Name: <strong id="profile-name"></strong></p>
  <div class="row"><input id="profile-name-input" autocomplete="off" placeholder="Your name"><button id="save-name">Save</button></div>
  <p class="muted" id="profile-saving"></p><p class="error" id="profile-error"></p></div>
</section>
<section id="screen-devices">
 <div class="card"><div class="row"><button class="secondary back">Back</button><h2 style="margin:0;flex:1">Your devices</h2><span class="muted" id="devices-status"></span>
  <button id="refresh-devices" class="secondary">Refresh</button></div>
  <p class="muted">Each installation of this account is its own member of your Notes chat. A device you log in to with this key waits here until you link it.</p>
  <div id="device-list" style="margin-top:10px"></div>
  <p class="error" id="devices-error"></p><p class="muted" id="history-notice"></p></div>
</section>
<section id="screen-chat">
 <div class="card"><div class="row"><button class="secondary back">Back</button><img class="avatar missing" id="chat-avatar" alt="Group picture"><h2 style="margin:0;flex:1" id="chat-title"></h2><span class="protocol" id="chat-protocol"></span>
  <button id="group-info" class="secondary">Group info</button><button id="load-older" class="secondary">Older</button></div>
  <p class="muted" id="chat-notice"></p>
  <div id="messages" style="margin-top:10px"></div>
  <div class="row" style="margin-top:10px"><input id="composer" autocomplete="off" placeholder="Message"><label class="attach secondary" title="Send a picture or file">📎<input id="attach" type="file" style="display:none"></label><button id="send">Send</button></div>
  <p class="error" id="attach-error"></p></div>
</section>
</main>
<div id="toast"><span id="toast-text"></span><button id="toast-close" class="secondary">OK</button></div>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
let state = null, lastRev = -1, resyncing = false, socket = null, notice = "";
const $ = id => document.getElementById(id);
const SLICES = {routerChanged:"router", authChanged:"auth", chatListChanged:"chatList", currentChatChanged:"currentChat",
  toastChanged:"toast", busyChanged:"busy", networkChanged:"network", invitesChanged:"invites", profileChanged:"profile", devicesChanged:"devices"};

function connect() {
  socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  socket.onmessage = event => receive(JSON.parse(event.data));
  socket.onclose = () => { $("status").textContent = "Disconnected: reconnecting…"; setTimeout(connect, 1000); };
}
function send(message) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }
function dispatch(action) { send({kind: "action", action: Object.assign({schemaVersion: 1}, action)}); }

// The manager's rules: side effect first, then apply next / drop stale / resync on a gap.
function receive(message) {
  if (message.kind === "state") { state = message.state; lastRev = state.rev; resyncing = false; render(); return; }
  if (message.kind === "exportedNsec") { $("exported-nsec").textContent = message.nsec; return; }
  if (message.kind === "error") { console.warn("marmot:", message.message); return; }
  if (message.kind !== "update" || state === null) return;
  const update = message.update;
  if (update.type === "accountCreated") {
    notice = "Account created. Your secret key is kept by marmot in $MARMOT_HOME/nsec; use Export key to copy it. (Click to dismiss.)";
  }
  if (update.type === "secretForgotten") notice = "";
  if (update.rev <= lastRev) return;
  if (update.rev !== lastRev + 1) { if (!resyncing) { resyncing = true; send({kind: "resync"}); } return; }
  if (update.type === "fullState") state = update.state;
  else if (update.type === "outcomeChanged") { state.lastOutcome = update.outcome; state.toast = update.toast; }
  else if (SLICES[update.type]) state[SLICES[update.type]] = update[SLICES[update.type]];
  state.rev = lastRev = update.rev;
  render();
}

function el(tag, className, text) { const e = document.createElement(tag); if (className) e.className = className; if (text !== undefined) e.textContent = text; return e; }
function topScreen() { const r = state.router; return r.screenStack.length ? r.screenStack[r.screenStack.length - 1] : r.defaultScreen; }

function render() {
  const screen = topScreen();
  for (const name of ["login", "chatList", "newChat", "chat", "newGroup", "groupInfo", "relays", "profile", "devices"]) $("screen-" + name).classList.toggle("shown", screen.type === name);
  $("status").textContent = state.network.statusText;
  document.body.dataset.rev = String(state.rev);
  document.body.dataset.keyPackage = String(state.network.keyPackagePublished);
  $("notice").textContent = notice; $("notice").classList.toggle("shown", notice !== "");
  $("toast-text").textContent = state.toast || ""; $("toast").classList.toggle("shown", !!state.toast);
  const busy = state.busy;
  $("create-account").disabled = $("import-button").disabled = busy.creatingAccount || busy.loggingIn || busy.restoringSession;
  $("login-busy").textContent = busy.creatingAccount ? "Creating account…" : busy.loggingIn ? "Logging in…" : busy.restoringSession ? "Restoring…" : "";
  $("new-chat-busy").textContent = busy.creatingChat ? "Starting the chat…" : "";
  $("start-chat").disabled = $("create-group").disabled = busy.creatingChat;
  $("new-group-busy").textContent = busy.creatingChat ? "Creating the group…" : "";
  if (state.auth.type === "loggedIn") $("my-npub").textContent = state.auth.npub;
  $("title").textContent = screen.type === "chat" && state.currentChat ? state.currentChat.displayName : "Marmot";
  renderInvites(); renderChats(); renderChat(); renderGroupInfo(); renderRelays(); renderProfile(); renderDevices();
}

// This account's devices as the core lists them (issue 29): linked ones (this one marked), then those
// waiting to be linked; Link and Remove forward the core's ids, the core checks them.
function renderDevices() {
  const devices = state.devices, box = $("device-list");
  const linked = devices.list.filter(d => d.isLinked).length;
  $("devices-status").textContent = devices.loading ? "Reading…" : devices.loaded ? `${linked} linked · ${devices.list.length - linked} waiting` : "";
  $("refresh-devices").disabled = devices.loading;
  $("history-notice").textContent = devices.historyNotice;
  $("devices-error").textContent = failure("list_devices") || failure("link_device") || failure("remove_device");
  box.replaceChildren();
  if (!devices.list.length) box.append(el("p", "muted", devices.loaded ? "No devices listed." : "Reading your devices…"));
  for (const device of devices.list) {
    const row = el("div", "device row"); row.dataset.deviceId = device.id;
    const text = el("div", "text"); text.style.flex = "1";
    text.append(el("div", "name", device.name), el("div", "mono muted", device.id));
    row.append(text);
    if (device.addedDisplay) row.append(el("span", "muted", "added " + device.addedDisplay));
    row.append(el("span", "status " + (device.isThisDevice ? "this" : device.isLinked ? "linked" : "waiting"), device.statusLabel));
    if (!device.isLinked) {
      const link = el("button", "link", "Link"); link.disabled = devices.loading;
      link.title = "Add this device to your Notes: it reads the notes written from now on.";
      link.onclick = () => { if (confirm(`Link ${device.name}? Only link a device you logged in to yourself.`)) dispatch({type: "linkDevice", id: device.id}); };
      row.append(link);
    } else if (!device.isThisDevice) {
      const remove = el("button", "remove secondary", "Remove"); remove.disabled = devices.loading;
      remove.onclick = () => { if (confirm(`Remove ${device.name}? It reads nothing written after.`)) dispatch({type: "removeDevice", id: device.id}); };
      row.append(remove);
    }
    box.append(row);
  }
}

// The last outcome's message when it is a failure of `operation`, else "" (decided from codes).
function failure(operation) {
  const outcome = state.lastOutcome;
  return outcome && outcome.operation === operation && outcome.code !== "ok" ? outcome.message : "";
}

function renderRelays() {
  $("relays-status").textContent = state.network.statusText;
  const box = $("relay-list"); box.replaceChildren();
  for (const relay of state.network.relays) {
    const row = el("div", "relay row"); row.dataset.url = relay.url;
    row.append(el("span", "mono", relay.url), el("span", "status " + relay.state.type, relay.statusText));
    const remove = el("button", "remove secondary", "Remove");
    remove.onclick = () => dispatch({type: "removeRelay", url: relay.url});
    row.append(remove); box.append(row);
  }
  // Relays a chat's group names (issue 26): shown with the chats that brought them, not removable here.
  for (const relay of state.network.groupRelays || []) {
    const row = el("div", "relay group-relay row"); row.dataset.url = relay.url;
    row.append(el("span", "mono", relay.url), el("span", "status " + relay.state.type, relay.statusText),
               el("span", "origin", "group relay " + relay.originText));
    box.append(row);
  }
  $("relays-error").textContent = failure("change_relays");
  // Where pictures and files are uploaded (issue 28); without named ones, the relays' own.
  const blossom = $("blossom-list"); blossom.replaceChildren();
  $("blossom-note").textContent = state.network.blossomServersNamed ? "Your files go to the first." : "Your relays' own servers (name one to use it instead).";
  for (const url of state.network.blossomServers || []) {
    const row = el("div", "blossom row"); row.dataset.url = url; row.append(el("span", "mono", url));
    if (state.network.blossomServersNamed) {
      const remove = el("button", "remove secondary", "Remove");
      remove.onclick = () => dispatch({type: "removeBlossomServer", url});
      row.append(remove);
    }
    blossom.append(row);
  }
  $("blossom-error").textContent = failure("change_blossom_servers");
}

function renderProfile() {
  const profile = state.profile;
  $("profile-name").textContent = profile.name === null ? "not set" : profile.name;
  $("profile-saving").textContent = profile.statusText || "";
  $("save-name").disabled = profile.saving;
  $("profile-error").textContent = profile.saving ? "" : failure("set_profile_name");
}

function renderGroupInfo() {
  const chat = state.currentChat, box = $("members");
  box.replaceChildren();
  if (!chat) return;
  $("group-title").textContent = chat.displayName + " · " + chat.memberCount + " members";
  $("group-manage").style.display = chat.canManage ? "block" : "none";
  const me = state.auth.type === "loggedIn" ? state.auth.npub : null;
  for (const npub of (me ? [me] : []).concat(chat.memberNpubs)) {
    const row = el("div", "member row"); row.dataset.npub = npub;
    const admin = chat.adminNpubs.includes(npub);
    row.append(el("span", "mono", npub), el("span", "muted", (admin ? "admin" : "member") + (npub === me ? " (you)" : "")));
    if (chat.canManage) {
      const toggle = el("button", "secondary", admin ? "Remove admin" : "Make admin");
      toggle.onclick = () => dispatch({type: "setAdmin", chatId: chat.chatId, npub, isAdmin: !admin});
      row.append(toggle);
      if (npub !== me) {
        const remove = el("button", "secondary", "Remove");
        remove.onclick = () => { if (confirm("Remove this member?")) dispatch({type: "removeMember", chatId: chat.chatId, npub}); };
        row.append(remove);
      }
    }
    box.append(row);
  }
}

function renderInvites() {
  const box = $("invites"); box.replaceChildren();
  for (const invite of state.invites) {
    const row = el("div", "invite"); row.dataset.inviteId = invite.inviteId;
    row.append(el("span", "title", invite.title), el("span", "muted", invite.receivedTimeDisplay));
    const answering = !invite.canAnswer;
    const accept = el("button", "accept", answering ? "…" : "Accept"); accept.disabled = answering;
    accept.onclick = () => dispatch({type: "acceptInvite", inviteId: invite.inviteId});
    const decline = el("button", "decline secondary", "Decline"); decline.disabled = answering;
    decline.onclick = () => dispatch({type: "declineInvite", inviteId: invite.inviteId});
    row.append(accept, decline); box.append(row);
  }
}

// Group pictures come from this server (`/chat-image`, behind the same token), decrypted by the
// core. One <img> per chat is kept across renders, so a picture is fetched once per new picture
// (the core's state goes through loading to available when the group names a new one).
const avatars = {};
function avatar(chat) {
  const known = avatars[chat.chatId];
  if (chat.image !== "available") { if (known) known.ready = false; return null; }
  if (known && known.ready) return known.img;
  const img = el("img", "avatar"); img.alt = "Group picture";
  img.src = `/chat-image?token=${encodeURIComponent(token)}&chat=${encodeURIComponent(chat.chatId)}&t=${Date.now()}`;
  avatars[chat.chatId] = {img, ready: true};
  return img;
}
function renderChats() {
  const box = $("chats"); box.replaceChildren();
  // Notes first (the core sorts it so), or until it exists a row that makes it (issue 29).
  $("notes-entry").style.display = state.chatList.some(c => c.isNotes) ? "none" : "flex";
  // Archived chats are left out (issue 48), as the core's inboxChats does.
  const inbox = state.chatList.filter(c => !c.isArchived);
  $("no-chats").style.display = inbox.length ? "none" : "block";
  for (const chat of inbox) {
    const row = el("div", chat.isNotes ? "chat-row notes" : "chat-row"); row.dataset.chatId = chat.chatId; row.dataset.image = chat.image;
    const picture = avatar(chat);
    if (picture) row.append(picture);
    else if (chat.image === "loading" || chat.image === "failed") row.append(el("span", "avatar", ""));
    const text = el("div", "text"); text.append(el("div", "name", chat.displayName), el("div", "preview", chat.lastMessagePreview));
    row.append(text, el("span", "protocol", chat.protocolLabel), el("span", "muted", chat.lastMessageTimeDisplay));
    if (chat.membershipLabel) row.append(el("span", "muted", chat.membershipLabel));
    if (chat.muteLabel) row.append(el("span", "muted", chat.muteLabel));
    if (chat.unreadCount > 0) row.append(el("span", "badge", String(chat.unreadCount)));
    row.onclick = () => dispatch({type: "openChat", chatId: chat.chatId});
    box.append(row);
  }
}

function mark(delivery) {
  if (delivery.type === "pending") return el("span", "mark pending", "⏳");
  if (delivery.type === "sent") return el("span", "mark sent", "✓");
  const failed = el("span", "mark failed", "✗ " + delivery.reason); return failed;
}

function renderChat() {
  const chat = state.currentChat, box = $("messages");
  if (!chat) { box.replaceChildren(); return; }
  $("chat-title").textContent = chat.displayName;
  const header = $("chat-avatar"), row = state.chatList.find(c => c.chatId === chat.chatId);
  const shown = row && chat.image === "available" ? avatar(row) : null;
  header.classList.toggle("missing", !shown);
  if (shown && header.src !== shown.src) header.src = shown.src;
  header.title = chat.imageError || "";
  $("chat-protocol").textContent = chat.retentionLabel ? chat.protocolLabel + " · " + chat.retentionLabel : chat.protocolLabel;
  const notice = [chat.isNotes ? "Only your linked devices read Notes. " + state.devices.historyNotice : "",
    chat.convergenceLabel || ""].filter(Boolean).join(" · ");
  $("chat-notice").textContent = notice;
  $("chat-notice").style.display = notice ? "block" : "none";
  $("load-older").style.display = chat.canLoadOlder ? "inline-block" : "none";
  $("group-info").style.display = chat.isGroup && !chat.isNotes ? "inline-block" : "none";
  $("load-older").disabled = chat.isLoadingOlder;
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.replaceChildren();
  for (const message of chat.messages) {
    const bubble = el("div", "message " + (message.kind === "system" ? "system" : message.isMine ? "mine" : "theirs"));
    bubble.dataset.messageId = message.id;
    if (message.mentionsMe) bubble.classList.add("mention");
    if (message.replyTo) {
      const q = message.replyTo;
      bubble.append(el("div", "quote", (q.senderDisplay ? q.senderDisplay + ": " : "") + q.text));
    }
    if (message.content) bubble.append(el("div", "content", message.content));
    for (const file of message.attachments || []) bubble.append(attachmentView(chat, message, file));
    if (message.kind !== "system") {
      if (message.reactions.length) {
        const row = el("div", "reactions");
        for (const r of message.reactions) {
          const b = el("button", r.includesMe ? "mine" : "", r.label);
          b.onclick = () => dispatch(r.includesMe
            ? {type: "unreact", chatId: chat.chatId, messageId: message.id, emoji: r.emoji}
            : {type: "react", chatId: chat.chatId, messageId: message.id, emoji: r.emoji});
          row.append(b);
        }
        bubble.append(row);
      }
      const meta = el("div", "meta", message.displayTimestamp + (message.editedMark ? " · " + message.editedMark : "") + " ");
      if (message.invalidatedLabel) meta.append(el("span", "invalidated", message.invalidatedLabel));
      const actions = el("span", "actions");
      const like = el("button", "react", "👍");
      like.onclick = () => dispatch({type: "react", chatId: chat.chatId, messageId: message.id, emoji: "👍"});
      const reply = el("button", "reply", "Reply");
      reply.onclick = () => { const t = prompt("Reply"); if (t && t.trim()) dispatch({type: "reply", chatId: chat.chatId, messageId: message.id, content: t}); };
      actions.append(like, reply);
      if (message.canModify) {
        const edit = el("button", "edit", "Edit");
        edit.onclick = () => { const t = prompt("Edit", message.content); if (t && t.trim()) dispatch({type: "editMessage", chatId: chat.chatId, messageId: message.id, content: t}); };
        actions.append(edit);
      }
      if (message.canDelete) {
        const del = el("button", "delete", "Delete");
        del.onclick = () => { if (confirm("Delete for everyone?")) dispatch({type: "deleteMessage", chatId: chat.chatId, messageId: message.id}); };
        actions.append(del);
      }
      meta.append(actions);
      if (message.isMine) {
        meta.append(mark(message.delivery));
        if (message.delivery.type === "failed") {
          const retry = el("button", "retry", "Retry");
          retry.onclick = () => dispatch({type: "retryMessage", chatId: chat.chatId, messageId: message.id});
          meta.append(retry);
        }
      }
      bubble.append(meta);
    }
    box.append(bubble);
  }
  if (atBottom) box.scrollTop = box.scrollHeight;
  $("attach-error").textContent = attachNotice || failure("send_attachment") || failure("download_attachment");
}

// A picture is shown inline once it is on this device; any file can be saved. The bytes come from
// this server (`/attachment`, behind the same token), decrypted by the core; the page never sees keys.
function attachmentURL(chat, message, file, download) {
  return `/attachment?token=${encodeURIComponent(token)}&chat=${encodeURIComponent(chat.chatId)}&message=${encodeURIComponent(message.id)}&index=${file.index}` + (download ? "&download=1" : "");
}
function attachmentView(chat, message, file) {
  const box = el("div", "attachment " + file.state); box.dataset.index = file.index;
  if (file.isImage && file.state === "available") {
    const img = el("img"); img.alt = file.filename; img.src = attachmentURL(chat, message, file, false);
    img.style.maxWidth = "100%"; img.style.maxHeight = "320px"; img.style.borderRadius = "8px";
    box.append(img);
  }
  box.append(el("div", "file", "📎 " + file.label + (file.stateText ? " · " + file.stateText : "")));
  if (file.reason) box.append(el("div", "error", file.reason));
  if (file.canDownload) {
    const get = el("button", "download secondary", file.isImage ? "Show" : "Download");
    get.onclick = () => dispatch({type: "downloadAttachment", chatId: chat.chatId, messageId: message.id, index: file.index});
    box.append(get);
  } else if (file.state === "available") {
    const save = el("a", "save", "Save"); save.href = attachmentURL(chat, message, file, true); save.download = file.filename;
    box.append(save);
  }
  return box;
}

function back() { dispatch({type: "updateScreenStack", screenStack: state.router.screenStack.slice(0, -1)}); }
for (const button of document.querySelectorAll(".back")) button.onclick = back;
$("create-account").onclick = () => dispatch({type: "createAccount"});
$("import-button").onclick = () => { const nsec = $("import-nsec").value.trim(); $("import-nsec").value = ""; if (nsec) dispatch({type: "login", nsec}); };
$("new-chat-button").onclick = () => dispatch({type: "pushScreen", screen: {type: "newChat"}});
$("start-chat").onclick = () => { const npub = $("peer-npub").value.trim(); if (npub) { dispatch({type: "createChat", peerNpub: npub}); $("peer-npub").value = ""; } };
$("new-group-button").onclick = () => dispatch({type: "pushScreen", screen: {type: "newGroup"}});
$("create-group").onclick = () => {
  dispatch({type: "createGroup", name: $("group-name").value, memberNpubs: $("group-npubs").value.split(/[\s,]+/).filter(s => s)});
};
$("relays-button").onclick = () => dispatch({type: "pushScreen", screen: {type: "relays"}});
$("profile-button").onclick = () => dispatch({type: "pushScreen", screen: {type: "profile"}});
$("devices-button").onclick = () => { dispatch({type: "pushScreen", screen: {type: "devices"}}); dispatch({type: "loadDevices"}); };
$("refresh-devices").onclick = () => dispatch({type: "loadDevices"});
$("notes-entry").onclick = () => dispatch({type: "openNotes"});
$("add-relay").onclick = () => { dispatch({type: "addRelay", url: $("relay-url").value}); $("relay-url").value = ""; };
$("relay-url").onkeydown = event => { if (event.key === "Enter") $("add-relay").onclick(); };
$("save-name").onclick = () => { dispatch({type: "setProfileName", name: $("profile-name-input").value}); $("profile-name-input").value = ""; };
$("profile-name-input").onkeydown = event => { if (event.key === "Enter" && !state.profile.saving) $("save-name").onclick(); };
$("group-info").onclick = () => { if (state.currentChat) dispatch({type: "pushScreen", screen: {type: "groupInfo", chatId: state.currentChat.chatId}}); };
$("add-member").onclick = () => { if (state.currentChat) { dispatch({type: "addMembers", chatId: state.currentChat.chatId, npubs: [$("add-npub").value]}); $("add-npub").value = ""; } };
$("disband-group").onclick = () => { if (state.currentChat && confirm("Close this group for every member, for good?")) dispatch({type: "disbandChat", chatId: state.currentChat.chatId}); };
$("set-retention").onclick = () => { if (state.currentChat) dispatch({type: "setRetention", chatId: state.currentChat.chatId, seconds: Number($("retention").value)}); };
$("rename-group").onclick = () => { if (state.currentChat) { dispatch({type: "renameChat", chatId: state.currentChat.chatId, name: $("rename").value}); $("rename").value = ""; } };
$("leave-group").onclick = () => { if (state.currentChat && confirm("Leave this group?")) dispatch({type: "leaveChat", chatId: state.currentChat.chatId}); };
$("send").onclick = () => {
  const text = $("composer").value; if (!text.trim() || !state.currentChat) return;
  dispatch({type: "sendMessage", chatId: state.currentChat.chatId, content: text}); $("composer").value = "";
};
$("composer").onkeydown = event => { if (event.key === "Enter") $("send").onclick(); };
const maxAttachment = 12 * 1024 * 1024;
let attachNotice = "";
$("attach").onchange = () => {
  const file = $("attach").files[0]; $("attach").value = ""; attachNotice = "";
  if (!file || !state.currentChat) return;
  if (file.size > maxAttachment) { attachNotice = "The page sends files up to 12 MB; use `marmot send --file` for larger ones."; render(); return; }
  const chatId = state.currentChat.chatId, caption = $("composer").value; $("composer").value = "";
  const reader = new FileReader();
  reader.onload = () => {
    const data = String(reader.result).split(",", 2)[1] || "";
    dispatch({type: "sendAttachment", chatId, data, filename: file.name, mimeType: file.type || "application/octet-stream", caption});
  };
  reader.readAsDataURL(file);
};
$("group-image").onchange = () => {
  const file = $("group-image").files[0]; $("group-image").value = "";
  if (!file || !state.currentChat) return;
  const chatId = state.currentChat.chatId, reader = new FileReader();
  reader.onload = () => dispatch({type: "setChatImage", chatId, data: String(reader.result).split(",", 2)[1] || "", mediaType: file.type || null});
  reader.readAsDataURL(file);
};
$("clear-group-image").onclick = () => { if (state.currentChat) dispatch({type: "clearChatImage", chatId: state.currentChat.chatId}); };
$("add-blossom").onclick = () => { dispatch({type: "addBlossomServer", url: $("blossom-url").value}); $("blossom-url").value = ""; };
$("load-older").onclick = () => { if (state.currentChat) dispatch({type: "loadOlder", chatId: state.currentChat.chatId}); };
$("notice").onclick = () => { notice = ""; render(); };
$("toast-close").onclick = () => dispatch({type: "clearToast"});
$("logout").onclick = () => { if (confirm("Log out? The key is deleted from this machine; export it first to keep the account.")) { notice = ""; $("exported-nsec").textContent = ""; dispatch({type: "logout"}); } };
$("export-key").onclick = () => { if (confirm("Show your secret key (nsec)? Anyone who sees it can read and send your messages.")) send({kind: "exportNsec", confirm: true}); };
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") dispatch({type: "foregrounded"}); });
connect();
</script>
</body></html>
"""#
}
