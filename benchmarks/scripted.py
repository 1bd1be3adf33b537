"""A browser session without a browser: Streamlit's own protocol over its WebSocket
(``/_stcore/stream``: BackMsg out, ForwardMsg in, from Streamlit's installed protobuf
classes) and its upload endpoint, for load tests that 50 Chromium pages would not fit on
this machine. A ``Session`` opens the app at a URL's query, uploads a table as the file
uploader would, and reports each run's time and whether the page showed an exception or an
error box."""

from __future__ import annotations

import http.cookiejar
import time
import urllib.request
import uuid

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileUploaderState, FileURLsRequest, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
from websockets.sync.client import connect


class Session:
    """One scripted session of the app served at ``url`` (``http://host:port``)."""

    def __init__(self, url: str, query: str = "", timeout: float = 600.0) -> None:
        self.url, self.query, self.timeout = url, query, timeout
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.http.open(url + "/_stcore/health", timeout=30).read()  # the XSRF cookie
        self.ws = connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                          subprotocols=["streamlit"], max_size=None, open_timeout=60)
        self.session_id = None
        self.uploader = None  # the file uploader's widget id, once the page drew it
        self.errors: list[str] = []
        self.texts: list[str] = []  # the last run's markdown, captions and notes

    def _read_until_finished(self) -> float:
        start = time.perf_counter()
        self.texts = []
        while True:
            message = ForwardMsg()
            message.ParseFromString(self.ws.recv(timeout=self.timeout))
            kind = message.WhichOneof("type")
            if kind == "new_session" and message.new_session.HasField("initialize"):
                self.session_id = message.new_session.initialize.session_id
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                what = element.WhichOneof("type")
                if what == "file_uploader":
                    self.uploader = element.file_uploader.id
                elif what == "exception":
                    self.errors.append(element.exception.message)
                elif what == "alert" and element.alert.format == 1:  # st.error
                    self.errors.append(element.alert.body)
                elif what == "markdown":
                    self.texts.append(element.markdown.body)
            elif kind == "script_finished":
                return time.perf_counter() - start

    def run(self, widgets: list[WidgetState] | None = None) -> float:
        """Rerun the app (at the session's query) with these widget values: seconds to
        the run's end."""
        self.ws.send(BackMsg(rerun_script=ClientState(
            query_string=self.query, widget_states=WidgetStates(widgets=widgets or []),
        )).SerializeToString())
        return self._read_until_finished()

    def upload(self, name: str, data: bytes) -> float:
        """Upload ``data`` as the file uploader does (ask the server for its URLs, PUT
        the file, rerun with the uploader's new value): seconds from the request to the
        end of the run that reads it."""
        start = time.perf_counter()
        request_id = uuid.uuid4().hex
        self.ws.send(BackMsg(file_urls_request=FileURLsRequest(
            request_id=request_id, file_names=[name], session_id=self.session_id,
        )).SerializeToString())
        while True:
            message = ForwardMsg()
            message.ParseFromString(self.ws.recv(timeout=self.timeout))
            if message.WhichOneof("type") == "file_urls_response":
                urls = message.file_urls_response.file_urls[0]
                break
        token = next(c.value for c in self.jar if c.name == "_streamlit_xsrf")
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{name}\"\r\nContent-Type: text/csv\r\n\r\n").encode() + data + (
            f"\r\n--{boundary}--\r\n").encode()
        put = urllib.request.Request(
            self.url + urls.upload_url if urls.upload_url.startswith("/") else urls.upload_url,
            data=body, method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                     "X-Xsrftoken": token})
        self.http.open(put, timeout=self.timeout).read()
        state = WidgetState(id=self.uploader, file_uploader_state_value=FileUploaderState(
            uploaded_file_info=[UploadedFileInfo(file_id=urls.file_id, name=name,
                                                 size=len(data), file_urls=urls)]))
        self.run([state])
        return time.perf_counter() - start

    def close(self) -> None:
        self.ws.close()
