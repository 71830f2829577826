// Every language's whole catalog, for the server, which renders pages in both. A browser never
// imports this: its entry holds its own language's `site` part and loads a lazy page's part with
// the page (client/entry-*.tsx).
import type { Language } from '../i18n/languages';
import type { Catalog } from './types';
import enSite from './en/site';
import enForms from './en/forms';
import enActivate from './en/activate';
import enPrivacy from './en/privacy';
import enConfirm from './en/confirm';
import enLeave from './en/leave';
import enData from './en/data';
import ruSite from './ru/site';
import ruForms from './ru/forms';
import ruActivate from './ru/activate';
import ruPrivacy from './ru/privacy';
import ruConfirm from './ru/confirm';
import ruLeave from './ru/leave';
import ruData from './ru/data';

export type { Catalog } from './types';

export const CATALOGS: Record<Language, Required<Catalog>> = {
  en: {
    site: enSite,
    forms: enForms,
    activate: enActivate,
    privacy: enPrivacy,
    confirm: enConfirm,
    leave: enLeave,
    data: enData,
  },
  ru: {
    site: ruSite,
    forms: ruForms,
    activate: ruActivate,
    privacy: ruPrivacy,
    confirm: ruConfirm,
    leave: ruLeave,
    data: ruData,
  },
};
