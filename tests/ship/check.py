#!/usr/bin/env python3
"""Judges one request tests/ship/receiver.py kept, as the real server would.

Usage: check.py KIND DIR/N
KIND is pyroscope-folded, pyroscope-pprof or parca.  Prints what the body
decodes to: for folded, the total of its counts; for pprof (Pyroscope's raw
or multipart body, Parca's base64 in JSON), `go tool pprof -raw` of it.
Exits 1, saying why, when the server would refuse or misread the request.
The rules are the servers' own, as of grafana/pyroscope
pkg/ingester/pyroscope/ingest_handler.go, api/model/labelset and
pkg/og/convert/parser.go, and parca-dev/parca
proto/parca/profilestore/v1alpha1/profilestore.proto, pkg/server/server.go
and pkg/normalizer.
"""
import base64
import email.parser
import email.policy
import json
import re
import subprocess
import sys
import tempfile
import urllib.parse


def fail(msg):
    print('check.py: ' + msg, file=sys.stderr)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def query(req):
    try:
        q = urllib.parse.parse_qs(req['query'], keep_blank_values=True,
                                  strict_parsing=True)
    except ValueError as e:
        fail('query %r: %s' % (req['query'], e))
    for k, v in q.items():
        expect(len(v) == 1, 'query parameter %s given %d times' % (k, len(v)))
    return {k: v[0] for k, v in q.items()}


# Pyroscope's name: APP{KEY=VALUE,...}; APP of letters, digits and _ . - /,
# keys of letters, digits, _ and ., values without , or }.
NAME = re.compile(r'[A-Za-z0-9_./-]+(\{([A-Za-z0-9_.]+=[^,}]*(,[A-Za-z0-9_.]+=[^,}]*)*)?\})?$')


def pyroscope_query(req):
    expect(req['path'] == '/ingest', 'path %s, not /ingest' % req['path'])
    q = query(req)
    for k in q:
        expect(k in ('name', 'from', 'until', 'format', 'sampleRate', 'spyName',
                     'units', 'aggregationType'), 'unknown query parameter ' + k)
    expect(NAME.match(q.get('name', '')), 'name %r is not APP{KEY=VALUE,...}' % q.get('name'))
    expect(re.fullmatch(r'\d+', q.get('from', '')) and re.fullmatch(r'\d+', q.get('until', '')),
           'from and until are not UNIX seconds')
    expect(int(q['from']) <= int(q['until']), 'from is after until')
    if 'sampleRate' in q:
        expect(re.fullmatch(r'[1-9]\d*', q['sampleRate']), 'sampleRate %r' % q['sampleRate'])
    if 'units' in q:
        expect(q['units'] in ('samples', 'objects', 'goroutines', 'bytes', 'lock_nanoseconds',
                              'lock_samples'), 'units %r' % q['units'])
    if 'aggregationType' in q:
        expect(q['aggregationType'] in ('sum', 'average'), 'aggregationType %r' % q['aggregationType'])
    return q


def content_type(req):
    return {k.lower(): v for k, v in req['headers'].items()}.get('content-type', '')


def decode_pprof(data):
    with tempfile.NamedTemporaryFile(suffix='.pb.gz') as f:
        f.write(data)
        f.flush()
        r = subprocess.run(['go', 'tool', 'pprof', '-raw', '-symbolize=none', f.name],
                           capture_output=True, text=True)
    expect(r.returncode == 0, 'go tool pprof cannot read the profile: ' + r.stderr.strip())
    return r.stdout


def pyroscope_folded(req, body):
    q = pyroscope_query(req)
    expect(q.get('format', 'folded') == 'folded', 'format %r, not folded' % q.get('format'))
    ct = content_type(req)
    expect('multipart/' not in ct and '+trie' not in ct and '+tree' not in ct,
           'Content-Type %s makes Pyroscope read another format' % ct)
    # As Pyroscope's ParseGroups: the count after the last space of each
    # line is an integer, or the whole request is refused.
    total = 0
    for n, line in enumerate(body.decode().splitlines(), 1):
        stack, sep, count = line.rpartition(' ')
        if not sep:
            continue
        expect(re.fullmatch(r'-?\d+', count) and stack, 'line %d: %r is not "STACK COUNT"' % (n, line))
        total += int(count)
    print(total)


def pyroscope_pprof(req, body):
    q = pyroscope_query(req)
    ct = content_type(req)
    if q.get('format') == 'pprof':
        # The body is taken as the profile, whatever its Content-Type says.
        expect('multipart/' not in ct, 'a multipart body with format=pprof is read as the profile itself')
        print(decode_pprof(body), end='')
        return
    expect('format' not in q, 'format %r' % q.get('format'))
    expect(ct.startswith('multipart/form-data'), 'no format=pprof, and Content-Type %s' % ct)
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b'Content-Type: ' + ct.encode() + b'\r\n\r\n' + body)
    parts = {p.get_param('name', header='content-disposition'): p for p in msg.iter_parts()}
    expect('profile' in parts, 'no form field "profile"')
    expect(parts['profile'].get_filename(), 'the "profile" field is not a file part (curl -F profile=@FILE)')
    print(decode_pprof(parts['profile'].get_payload(decode=True)), end='')


LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*$')


def parca(req, body):
    expect(req['path'] == '/api/profiles/writeraw', 'path %s, not /api/profiles/writeraw' % req['path'])
    expect(content_type(req).split(';')[0].strip() == 'application/json',
           'Content-Type %s, not application/json' % content_type(req))
    try:
        msg = json.loads(body)
    except ValueError as e:
        fail('body is not JSON: %s' % e)
    expect(isinstance(msg, dict) and set(msg) <= {'series', 'normalized', 'tenant'},
           'not a WriteRawRequest: %s' % list(msg))
    expect(len(msg.get('series', [])) == 1, 'not one series')
    s = msg['series'][0]
    names = {}
    for label in s['labels']['labels']:
        expect(set(label) == {'name', 'value'}, 'label %r' % label)
        expect(label['name'] == '__name__' or LABEL.match(label['name']), 'label name %r' % label['name'])
        expect(label['name'] not in names, 'duplicate label %r' % label['name'])
        names[label['name']] = label['value']
    expect(names.get('__name__'), 'no __name__ label')
    expect(len(s['samples']) == 1, 'not one sample')
    sample = s['samples'][0]
    raw = sample.get('rawProfile', sample.get('raw_profile'))
    expect(isinstance(raw, str), 'no rawProfile')
    try:
        data = base64.b64decode(raw, validate=True)
    except ValueError as e:
        fail('rawProfile is not base64: %s' % e)
    text = decode_pprof(data)
    # Parca refuses a profile whose ids are not 1, 2, 3...
    for section, pat in (('Locations', r'\s*(\d+): 0x'), ('Mappings', r'(\d+): 0x')):
        part = text.split('\n' + section + '\n', 1)[-1].split('\nMappings\n')[0] if section in text else ''
        ids = [int(m.group(1)) for m in (re.match(pat, l) for l in part.splitlines()) if m]
        expect(ids == list(range(1, len(ids) + 1)), '%s ids are not 1..n' % section)
    print(text, end='')


def main():
    kind, base = sys.argv[1], sys.argv[2]
    with open(base + '.json') as f:
        req = json.load(f)
    with open(base + '.body', 'rb') as f:
        body = f.read()
    expect(req['method'] == 'POST', 'method %s' % req['method'])
    {'pyroscope-folded': pyroscope_folded, 'pyroscope-pprof': pyroscope_pprof, 'parca': parca}[kind](req, body)


if __name__ == '__main__':
    main()
