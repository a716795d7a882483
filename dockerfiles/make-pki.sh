#!/bin/sh
# Runs as root while the base image builds: an internal CA the system trusts, a valid server
# certificate and an expired one for the same names (tls_cert_invalid serves the expired one).
# Private keys stay root-only, so the agent can neither read them nor mint a certificate.
set -eu
pki=/opt/impasse-pki
mkdir -p "$pki/db" && cd "$pki"
names="DNS:pricing.internal,DNS:artifacts.internal,DNS:localhost,IP:127.0.0.1"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
  -subj "/O=impasse internal/CN=impasse internal CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr \
  -subj "/O=impasse internal/CN=pricing.internal" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$names" > ext.cnf
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
  -extfile ext.cnf -out server.crt 2>/dev/null
# `openssl ca` is the one stock tool that sets an explicit validity window in the past.
touch db/index.txt && echo 1000 > db/serial
cat > ca.cnf <<CNF
[ca]
default_ca = impasse
[impasse]
database = $pki/db/index.txt
serial = $pki/db/serial
new_certs_dir = $pki/db
certificate = $pki/ca.crt
private_key = $pki/ca.key
default_md = sha256
policy = anything
copy_extensions = none
[anything]
organizationName = optional
commonName = supplied
[server]
subjectAltName = $names
basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
CNF
openssl ca -batch -config ca.cnf -extensions server -startdate 20240101000000Z \
  -enddate 20250101000000Z -in server.csr -out expired.crt 2>/dev/null
cp ca.crt /usr/local/share/ca-certificates/impasse-internal-ca.crt
update-ca-certificates >/dev/null 2>&1
rm -f server.csr ext.cnf ca.key
chmod 700 "$pki" && chmod 600 "$pki"/*.key
