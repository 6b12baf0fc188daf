export default function Home() {
  return <p>Webhooks: POST /webhooks/sms (Node.js runtime), POST /webhooks/sms/edge (Edge runtime).</p>;
}
