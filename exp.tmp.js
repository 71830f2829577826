const express = require('express'); const fs = require('fs');
const html = fs.readFileSync(process.argv[2] || 'package.json');
const app = express();
const mode = process.env.MODE;
if (mode === 'helmet') app.use(require('helmet')());
if (mode === 'compression') app.use(require('compression')());
app.use((req, res) => { res.status(200).setHeader('Content-Type', 'text/html'); res.end(html); });
app.listen(3951, '127.0.0.1');
