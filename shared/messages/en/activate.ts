// English messages of /activate, which travel in its lazy chunk (shared/messages/types.ts).
export default {
  title_: 'Activate your subscription · OrgNote',
} as const;
