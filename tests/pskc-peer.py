#!/usr/bin/python3
"""pskc-peer.py - random account sets for the PSKC cross-checks with
python3-pskc (tests/otp-uri-pskc.bats).

  pskc-peer.py gen SEED N DIR    DIR/uris (otpauth URIs, one a line),
                                 DIR/in.csv (for csv2pskc), DIR/expect.csv
  pskc-peer.py check DIR CSV     compare pskc2csv's CSV with DIR/expect.csv
  pskc-peer.py check-json DIR F  compare otp-uri --parse --json's lines
  pskc-peer.py csv2pskc ARGS...  python-pskc's csv2pskc
  pskc-peer.py pskc2csv ARGS...  python-pskc's pskc2csv
"""
import base64
import csv
import json
import random
import subprocess
import sys
import urllib.parse

URN = 'urn:ietf:params:xml:ns:keyprov:pskc:'
# Every character that is awkward somewhere: XML, CSV, URIs, labels.
AWKWARD = ['&', '<', '>', '"', "'", '%', ':', '/', '?', '#', '+', '=',
           ';', ',', '@', ' ', '\u00e9', '\u65e5\u672c', '\U0001f600',
           '&amp;', ']]>', '\\']
COLUMNS = ['serial', 'secret', 'algorithm', 'algorithm_suite',
           'response_length', 'counter', 'time_interval', 'issuer',
           'key_userid']


def name(rng):
    chars = AWKWARD + ['q', 'r']
    parts = [rng.choice('abcxyz')]
    for _ in range(rng.randint(1, 5)):
        parts.append(rng.choice(chars))
    parts.append(rng.choice('klm'))
    return ''.join(parts)


def gen(seed, n, outdir):
    rng = random.Random(int(seed))
    rows = []
    for i in range(int(n)):
        totp = rng.random() < 0.5
        alg = rng.choice(['SHA1', 'SHA256', 'SHA512'])
        digits = rng.randint(6, 8)
        key = bytes(rng.randrange(256) for _ in range(rng.randint(16, 32)))
        issuer = name(rng) if rng.random() < 0.7 else ''
        account = name(rng)
        row = {
            'serial': 'PEER%08X' % rng.randrange(1 << 32),
            'secret': base64.b32encode(key).decode(),
            'algorithm': URN + ('totp' if totp else 'hotp'),
            'algorithm_suite': 'HMAC-' + alg,
            'response_length': str(digits),
            'counter': '' if totp else str(rng.choice(
                [0, 1, 42, rng.randrange(1 << 40)])),
            'time_interval': str(rng.choice([30, 60, 15, 90])) if totp
            else '',
            'issuer': issuer,
            'key_userid': account,
        }
        rows.append(row)
    # The URIs as otp-uri builds them from the fields.
    with open(outdir + '/uris', 'w') as f:
        for r in rows:
            alg = r['algorithm_suite'][5:]
            args = ['otp-uri', '-q', '-A', r['key_userid'],
                    '-d', r['response_length']]
            if r['issuer']:
                args += ['-i', r['issuer']]
            if r['algorithm'].endswith('totp'):
                args += ['--totp=' + alg, '-p', r['time_interval']]
            else:
                args += ['--hotp', '-a', alg, '-c', r['counter']]
            out = subprocess.run(args + [r['secret']], check=True,
                                 capture_output=True, text=True).stdout
            f.write(out)
    for fname in ('in.csv', 'expect.csv'):
        with open(outdir + '/' + fname, 'w', newline='') as f:
            w = csv.DictWriter(f, COLUMNS)
            w.writeheader()
            for r in rows:
                w.writerow(r)


def check(outdir, got_csv):
    def load(fname, drop_serial):
        with open(fname, newline='') as f:
            rows = list(csv.DictReader(f))
        out = []
        for r in rows:
            r = {k: (v or '') for k, v in r.items() if k in COLUMNS}
            r['secret'] = r['secret'].rstrip('=')
            if drop_serial:
                r.pop('serial', None)
            out.append(tuple(sorted(r.items())))
        return sorted(out)
    want = load(outdir + '/expect.csv', True)
    got = load(got_csv, True)
    if want != got:
        for w, g in zip(want, got):
            if w != g:
                print('want', w, '\ngot ', g, file=sys.stderr)
                break
        print('pskc-peer: %d accounts expected, %d read, they differ' %
              (len(want), len(got)), file=sys.stderr)
        sys.exit(1)
    with open(got_csv, newline='') as f:
        for r in csv.DictReader(f):
            s = r['serial']
            # LinOTP's serial check: 4 letters or digits, 8 hex digits.
            if len(s) != 12 or not s[:4].isalnum() or \
                    not all(c in '0123456789abcdefABCDEF' for c in s[4:]):
                print('pskc-peer: serial %r not LinOTP\'s' % s,
                      file=sys.stderr)
                sys.exit(1)


def check_json(outdir, got_json):
    """otp-uri --parse --json lines against DIR/expect.csv."""
    with open(outdir + '/expect.csv', newline='') as f:
        want = sorted(
            (r['secret'].rstrip('='), 'totp' if r['algorithm'].endswith(
                'totp') else 'hotp', r['algorithm_suite'][5:],
             int(r['response_length']), r['issuer'], r['key_userid'],
             int(r['time_interval'] or 0), int(r['counter'] or 0))
            for r in csv.DictReader(f))
    got = []
    with open(got_json) as f:
        for line in f:
            j = json.loads(line)
            got.append((j['secret'], j['type'], j['algorithm'], j['digits'],
                        j['issuer'], j['account'], j.get('period', 0),
                        j.get('counter', 0)))
    got.sort()
    if want != got:
        for w, g in zip(want, got):
            if w != g:
                print('want', w[1:], '\ngot ', g[1:], file=sys.stderr)
                break
        print('pskc-peer: %d accounts expected, %d read, they differ' %
              (len(want), len(got)), file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'gen':
        gen(*sys.argv[2:5])
    elif cmd == 'check':
        check(*sys.argv[2:4])
    elif cmd == 'check-json':
        check_json(*sys.argv[2:4])
    elif cmd in ('csv2pskc', 'pskc2csv'):
        sys.argv = [cmd] + sys.argv[2:]
        if cmd == 'csv2pskc':
            from pskc.scripts.csv2pskc import main
        else:
            from pskc.scripts.pskc2csv import main
        main()
