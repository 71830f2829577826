// English messages of /confirm, which travel in its lazy chunk (shared/messages/types.ts).
export default {} as const;
