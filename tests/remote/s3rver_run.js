// s3rver_run.js: an S3-compatible server on loopback holding a copy of a local store, for
// the remote-store tests. Usage: node s3rver_run.js DATA_DIR STORE_DIR BUCKET PREFIX PORT_FILE
// Starts s3rver (https://www.npmjs.com/package/s3rver, from NODE_PATH) on 127.0.0.1 with a
// free port, uploads every file of STORE_DIR to s3://BUCKET/PREFIX..., then writes the port
// to PORT_FILE. Every request is logged to stdout as one line "REQ <method> <url> <status>",
// so tests can count them. s3rver checks that a SigV4 request names a known access key
// (S3RVER) but does not verify the signature: tests/remote/faultproxy.py does that.
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const S3rver = require('s3rver');

const [dataDir, storeDir, bucket, prefix, portFile] = process.argv.slice(2);

function walk(dir, rel, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const r = rel ? rel + '/' + e.name : e.name;
    const st = fs.statSync(p);
    if (st.isDirectory()) walk(p, r, out);
    else if (st.isFile()) out.push([p, r, st.size]);
  }
  return out;
}

function put(port, key, file, size) {
  return new Promise((resolve, reject) => {
    const enc = key.split('/').map(encodeURIComponent).join('/')
      .replace(/[!'()*]/g, c => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    const req = http.request({ host: '127.0.0.1', port, method: 'PUT',
      path: '/' + bucket + '/' + enc, headers: { 'Content-Length': size } }, res => {
      res.resume();
      res.on('end', () => res.statusCode === 200 ? resolve()
        : reject(new Error(`PUT ${key}: HTTP ${res.statusCode}`)));
    });
    req.on('error', reject);
    fs.createReadStream(file).pipe(req);
  });
}

(async () => {
  // serviceEndpoint 'localhost': virtual-host requests to BUCKET.s3.localhost (curl resolves
  // *.localhost to loopback itself) name their bucket in the host
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dataDir, silent: true,
    serviceEndpoint: 'localhost',
    configureBuckets: [{ name: bucket }] });
  // s3rver prunes the directories below a common prefix before it has seen an object in
  // them, so a prefix holding only deeper objects (a failed run's logs/build/..., an
  // {owner}-{repo}/ namespace, python-deps/simple/...) is missing from CommonPrefixes;
  // S3 lists it. A listing that is not truncated gets the prefixes of every key under it.
  const list = server.store.listObjects.bind(server.store);
  server.store.listObjects = async (b, options) => {
    const r = await list(b, options);
    if (!options.delimiter || r.isTruncated)
      return r;
    const all = await list(b, { ...options, delimiter: '', maxKeys: Infinity });
    const p = options.prefix || '';
    const cps = new Set(r.commonPrefixes);
    for (const o of all.objects) {
      const i = o.key.slice(p.length).indexOf(options.delimiter);
      if (i !== -1)
        cps.add(o.key.slice(0, p.length + i + 1));
    }
    r.commonPrefixes = [...cps].sort();
    return r;
  };
  let uploading = true;
  server.middleware.unshift(async (ctx, next) => {
    await next();
    if (!uploading)
      process.stdout.write(`REQ ${ctx.method} ${ctx.originalUrl} ${ctx.status}\n`);
  });
  const addr = await server.run();
  const files = walk(storeDir, '', []);
  for (let i = 0; i < files.length; i += 8)
    await Promise.all(files.slice(i, i + 8).map(([p, r, size]) =>
      put(addr.port, (prefix ? prefix.replace(/\/+$/, '') + '/' : '') + r, p, size)));
  uploading = false;
  fs.writeFileSync(portFile + '.tmp', String(addr.port));
  fs.renameSync(portFile + '.tmp', portFile);
  process.stdout.write(`READY ${addr.port} ${files.length} objects\n`);
})().catch(e => { console.error(e); process.exit(1); });
