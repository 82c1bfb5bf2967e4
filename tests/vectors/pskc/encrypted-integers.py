#!/usr/bin/python3
"""Writes encrypted-integers.pskcxml beside it: a vendor-style container
(pre-shared AES-128 key 000102..0f, HMAC-SHA256 MAC, fixed IVs) whose
counter is an encrypted 8-byte big-endian number (as multiOTP writes
it), whose period is encrypted decimal text, plus an OCRA key that has
no otpauth:// form.  Needs python3-cryptography."""
import base64
import hashlib
import hmac
import os

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

KEY = bytes(range(16))
MACKEY = bytes(range(100, 132))
XENC = 'http://www.w3.org/2001/04/xmlenc#'


def enc(pt, iv):
    p = 16 - len(pt) % 16
    pt = pt + bytes([p]) * p
    e = Cipher(algorithms.AES(KEY), modes.CBC(iv)).encryptor()
    ct = iv + e.update(pt) + e.finalize()
    mac = hmac.new(MACKEY, ct, hashlib.sha256).digest()
    return base64.b64encode(ct).decode(), base64.b64encode(mac).decode()


def ev(pt, n):
    c, m = enc(pt, bytes([n]) * 16)
    return ('<EncryptedValue><xenc:EncryptionMethod Algorithm="' + XENC +
            'aes128-cbc"/><xenc:CipherData><xenc:CipherValue>%s'
            '</xenc:CipherValue></xenc:CipherData></EncryptedValue>'
            '<ValueMAC>%s</ValueMAC>' % (c, m))


MKC, _ = enc(MACKEY, bytes([9]) * 16)
SEC = b'12345678901234567890'
DOC = '''<?xml version="1.0" encoding="UTF-8"?>
<KeyContainer Version="1.0" xmlns="urn:ietf:params:xml:ns:keyprov:pskc"
  xmlns:ds="http://www.w3.org/2000/09/xmldsig#"
  xmlns:xenc="http://www.w3.org/2001/04/xmlenc#">
  <EncryptionKey><ds:KeyName>transport</ds:KeyName></EncryptionKey>
  <MACMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#hmac-sha256">
    <MACKey><xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
      <xenc:CipherData><xenc:CipherValue>%s</xenc:CipherValue></xenc:CipherData></MACKey>
  </MACMethod>
  <KeyPackage>
    <DeviceInfo><SerialNo>tok1</SerialNo></DeviceInfo>
    <Key Id="k1" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp">
      <Issuer>Vendor</Issuer>
      <AlgorithmParameters><ResponseFormat Length="6" Encoding="DECIMAL"/></AlgorithmParameters>
      <Data><Secret>%s</Secret><Counter>%s</Counter></Data>
    </Key>
  </KeyPackage>
  <KeyPackage>
    <Key Id="k2" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:totp">
      <Issuer>Vendor</Issuer>
      <FriendlyName>tok2</FriendlyName>
      <AlgorithmParameters><Suite>HMAC-SHA256</Suite><ResponseFormat Length="6" Encoding="DECIMAL"/></AlgorithmParameters>
      <Data><Secret>%s</Secret><Time>%s</Time><TimeInterval>%s</TimeInterval></Data>
    </Key>
  </KeyPackage>
  <KeyPackage>
    <Key Id="ocra" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc#OCRA-1:HOTP-SHA512-8:C-QN08">
      <Data><Secret>%s</Secret></Data>
    </Key>
  </KeyPackage>
</KeyContainer>
''' % (MKC, ev(SEC, 1), ev((10**12).to_bytes(8, 'big'), 2), ev(SEC, 3),
       ev((0).to_bytes(8, 'big'), 4), ev(b'60', 5), ev(SEC, 6))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'encrypted-integers.pskcxml'), 'w') as f:
    f.write(DOC)
