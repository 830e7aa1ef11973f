#!/usr/bin/env python3
"""A stand-in for Pyroscope's and Parca's HTTP ingest, on loopback.

Usage: receiver.py DIR
Listens on 127.0.0.1, on a port the kernel picks, and writes it to DIR/port
once it accepts connections.  Each POST is kept as DIR/N.json (method,
path, query string, headers) and DIR/N.body; tests/ship/check.py judges
them.  The answer is what the real servers give a good request (200, with
"{}" for Parca's gateway), unless DIR/fail exists: then 503, as a server
that is down or restarting answers.
"""
import http.server
import json
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        d = self.server.dir
        n = len([f for f in os.listdir(d) if f.endswith('.json')]) + 1
        length = int(self.headers.get('Content-Length', 0))
        body = self.rfile.read(length)
        path, _, query = self.path.partition('?')
        with open(os.path.join(d, '%d.body' % n), 'wb') as f:
            f.write(body)
        with open(os.path.join(d, '%d.json' % n), 'w') as f:
            json.dump({'method': 'POST', 'path': path, 'query': query,
                       'headers': dict(self.headers.items())}, f)
        if os.path.exists(os.path.join(d, 'fail')):
            self.send_response(503)
            reply = b'unavailable\n'
        else:
            self.send_response(200)
            reply = b'{}' if path.endswith('/writeraw') else b''
        self.send_header('Content-Length', str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def main():
    server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
    server.dir = sys.argv[1]
    tmp = os.path.join(server.dir, 'port.tmp')
    with open(tmp, 'w') as f:
        f.write('%d\n' % server.server_address[1])
    os.rename(tmp, os.path.join(server.dir, 'port'))
    server.serve_forever()


if __name__ == '__main__':
    main()
