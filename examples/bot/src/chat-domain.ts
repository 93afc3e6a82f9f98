import { ChannelDomain, channelCall } from '@webui/assembly';
import * as v from 'valibot';

const Message = v.strictObject({ text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(2000)) });

/**
 * The `chat` domain of the channel: a `send` call answers with the bot's reply, and every subscriber of chat/main
 * sees both messages as `message` events. Any logged-in socket may chat (`read`), as the dashboard's chat page does.
 */
export function chatDomain(nickname: () => string): ChannelDomain {
  const chat: ChannelDomain = new ChannelDomain('chat', {
    calls: {
      send: channelCall({
        scope: 'read',
        data: Message,
        handle: ({ text }, { log }) => {
          const reply = `${nickname()} heard: ${text}`;
          chat.publish('main', 'message', { from: 'user', text });
          chat.publish('main', 'message', { from: nickname(), text: reply });
          log.info({ length: text.length }, 'chat message answered');
          return { reply };
        },
      }),
    },
  });
  return chat;
}
