// Русские тексты, которые нужны каждой странице. Ключи те же, что в en/site.ts.
import type { SiteMessages } from '../types';

const site: SiteMessages = {
  skipToContent_: 'К содержимому',
  otherLanguage_: 'English',
};
export default site;
