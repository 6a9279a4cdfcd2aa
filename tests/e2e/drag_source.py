"""A file manager's part in dragging a file: a small window at X, Y offering FILE (a URI) as
text/uri-list over XDND, the way Nautilus or a desktop does. Started by the end-to-end tests
(Desktop::drop_file), which press, move and release the pointer with xdotool. It says on stdout
what the drag went through, a line each, so the test waits on what happened and never on time:
"ready" (painted), "begin" (the drag started), "accepted" (the window under the pointer takes
the file), "end dropped" or "end cancelled". Needs python3-gi and GTK 3 (scripts/setup-system.sh).
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

uri, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dropped = False


def say(line):
    print(line, flush=True)


def on_action(context, action):
    if action:
        say("accepted")


def on_begin(widget, context):
    say("begin")
    context.connect("action-changed", on_action)


def on_performed(context, time):
    global dropped
    dropped = True


def on_end(widget, context):
    say("end dropped" if dropped else "end cancelled")
    GLib.idle_add(Gtk.main_quit)


window = Gtk.Window(title="switchboard-test-drag-source")
window.set_default_size(100, 100)
window.move(x, y)
box = Gtk.EventBox()
box.add(Gtk.Label(label="tiny.mcpb"))
window.add(box)
box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()
box.connect("drag-data-get", lambda w, c, data, i, t: data.set_uris([uri]))
box.connect("drag-begin", lambda w, c: (on_begin(w, c), c.connect("drop-performed", on_performed)))
box.connect("drag-end", on_end)
window.connect("map-event", lambda *a: say("ready"))
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
