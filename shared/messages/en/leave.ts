// English messages of /leave, which travel in its lazy chunk (shared/messages/types.ts).
export default {} as const;
