// A multer backend for the benchmark, in its own process: parses multipart fields, answers 201.
import express from 'express';
import multer from 'multer';

const port = Number(process.argv[2] ?? 0);
const app = express();
app.post('/api/subscriptions', multer().none(), (req, res) => {
  res.status(201).json({ email: (req.body as { email?: string }).email });
});
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `listening ${typeof address === 'object' && address ? address.port : port}\n`,
  );
});
server.keepAliveTimeout = 65_000;
